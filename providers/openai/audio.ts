/**
 * Audio output of chat completions (`modalities: ["text", "audio"]`): `message.audio = {id, data, transcript,
 * expires_at}` whole, or `delta.audio` pieces in a stream (the first names the id, later ones carry base64 `data`
 * and `transcript` fragments, one the expiry). OpenRouter-style servers also say the `format`.
 */
import type { AudioPart, StreamEvent } from "../../core/sdk/index.ts";
import type { WireAudioOut } from "./wire.ts";

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The audio of a whole message, or undefined when it has none (no data and no transcript). */
export function audioPartOf(wire: WireAudioOut | null | undefined): AudioPart | undefined {
  if (wire === null || wire === undefined) return undefined;
  const data = text(wire.data);
  const transcript = text(wire.transcript);
  if (data === undefined && transcript === undefined) return undefined;
  const part: AudioPart = { type: "audio", data: data ?? "" };
  if (transcript !== undefined) part.transcript = transcript;
  if (text(wire.format) !== undefined) part.format = wire.format as string;
  if (text(wire.id) !== undefined) part.id = wire.id as string;
  if (typeof wire.expires_at === "number") part.expiresAt = wire.expires_at;
  return part;
}

/** The canonical piece of one `delta.audio` (all pieces of a message share `id`), or undefined when it is empty. */
export function audioPieceOf(wire: WireAudioOut | null | undefined, id: string): Extract<StreamEvent, { type: "audio" }> | undefined {
  if (wire === null || wire === undefined) return undefined;
  const piece: Extract<StreamEvent, { type: "audio" }> = { type: "audio", id };
  if (text(wire.data) !== undefined) piece.data = wire.data as string;
  if (text(wire.transcript) !== undefined) piece.transcript = wire.transcript as string;
  if (text(wire.format) !== undefined) piece.format = wire.format as string;
  if (text(wire.id) !== undefined) piece.audioId = wire.id as string;
  if (typeof wire.expires_at === "number") piece.expiresAt = wire.expires_at;
  return Object.keys(piece).length > 2 ? piece : undefined;
}
