/**
 * `data:` URL parsing for adapters whose upstream wants media type and base64 payload apart (Anthropic `source`,
 * Gemini `inlineData`).
 */

/** A parsed `data:<mediaType>[;base64],<payload>` URL, payload always base64. */
export interface DataUrl {
  mediaType: string;
  base64: string;
}

/** Parses a data: URL; undefined for anything else. Non-base64 payloads are percent-decoded and re-encoded. */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) return undefined;
  const mediaType = match[1] || "text/plain";
  const params = match[2] ?? "";
  const payload = match[3] ?? "";
  if (/;base64$/i.test(params) || /;base64;/i.test(params)) return { mediaType, base64: payload };
  return { mediaType, base64: Buffer.from(decodeURIComponent(payload), "utf8").toString("base64") };
}

/** True for http(s) URLs, which upstreams can fetch themselves. */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}
