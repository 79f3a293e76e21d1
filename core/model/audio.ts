/**
 * Joining audio output (AudioPart): streamed audio arrives as base64 pieces, and a reply of several turns may speak
 * several times, while chat's `message.audio` holds one. Base64 pieces only concatenate as text when the earlier one
 * has no padding; otherwise the bytes are joined and encoded again.
 */
import type { AudioPart } from "./parts.ts";

/** `a` then `b`, as one base64 string of both byte sequences. */
export function joinBase64(a: string, b: string): string {
  if (a === "") return b;
  if (b === "") return a;
  if (a.length % 4 === 0 && !a.endsWith("=")) return a + b;
  return Buffer.concat([Buffer.from(a, "base64"), Buffer.from(b, "base64")]).toString("base64");
}

/** Several audio parts as one: bytes and transcripts in order; id, expiry and format of the last that has them. */
export function mergeAudio(parts: readonly AudioPart[]): AudioPart | undefined {
  if (parts.length <= 1) return parts[0];
  const merged: AudioPart = { type: "audio", data: "" };
  const transcripts: string[] = [];
  for (const part of parts) {
    merged.data = joinBase64(merged.data, part.data);
    if (part.transcript !== undefined) transcripts.push(part.transcript);
    if (part.format !== undefined) merged.format = part.format;
    if (part.id !== undefined) merged.id = part.id;
    if (part.expiresAt !== undefined) merged.expiresAt = part.expiresAt;
  }
  if (transcripts.length > 0) merged.transcript = transcripts.join("");
  return merged;
}
