/** `data:` URLs of generated images: building them, reading them, and how big the image inside is. */

/** `data:<mediaType>;base64,<bytes>`. */
export function dataUrl(mediaType: string, bytes: Uint8Array): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** The media type and base64 payload of a base64 `data:` URL; undefined for anything else (an http URL). */
export function parseDataUrl(url: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,/i.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), base64: url.slice(match[0].length) } : undefined;
}

/** Bytes a base64 text decodes to (without decoding it). */
export function base64Bytes(base64: string): number {
  const clean = base64.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** The media type of an image output format (`png` → `image/png`). */
export function imageMediaType(format: string | undefined): string {
  return format === "jpeg" || format === "jpg" ? "image/jpeg" : format === "webp" ? "image/webp" : "image/png";
}
