/**
 * Gemini's generated media: `inlineData` parts of image models (`image/png`, …) and of speech models (`audio/L16;
 * codec=pcm;rate=24000`, raw 16-bit PCM) → canonical image and audio events, each whole in one part.
 */
import type { StreamEvent } from "../../core/sdk/index.ts";

/** Chat's audio format names for a MIME type: `pcm16` for Gemini's raw L16 PCM, else the subtype (`wav`, `mp3`). */
export function audioFormatOf(mimeType: string): string {
  const subtype = mimeType.split(";")[0]!.split("/")[1]?.toLowerCase() ?? "";
  if (subtype === "l16" || subtype === "pcm") return "pcm16";
  if (subtype === "mpeg") return "mp3";
  if (subtype === "x-wav" || subtype === "wave") return "wav";
  return subtype;
}

/** The event for an inline image or audio part; undefined for any other media (documents, video). */
export function mediaEvent(inline: { mimeType: string; data: string }, id: string): StreamEvent | undefined {
  const mimeType = inline.mimeType.toLowerCase();
  if (mimeType.startsWith("image/")) return { type: "image", id, url: `data:${inline.mimeType};base64,${inline.data}`, mediaType: inline.mimeType };
  if (mimeType.startsWith("audio/")) return { type: "audio", id, data: inline.data, format: audioFormatOf(mimeType) };
  return undefined;
}
