/**
 * Output filters on a whole (non-streamed) answer: its text, reasoning, refusals, the string values of its
 * tool-call arguments and the transcript of spoken audio, with the same verdict as on the way in: a block is a 403
 * (the answer was produced and is billed), redactions rewrite the parts, flags are recorded. The scan gives the
 * event loop back as it goes (scan.ts).
 */
import type { AudioPart } from "../model/parts.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { PipelineEntry } from "../pipeline/context.ts";
import type { Filter } from "./policy.ts";
import { applyRedactions } from "./redact.ts";
import { blockError, pipelineEntries } from "./report.ts";
import { jsonSlots, type TextSlot } from "./request-texts.ts";
import { scanSlots } from "./scan.ts";

/** Empties an audio part of its sound and of the id that refers to it upstream. */
function withoutAudio(part: AudioPart): AudioPart {
  part.data = "";
  delete part.id;
  delete part.expiresAt;
  return part;
}

export function responseSlots(response: CanonicalResponse): TextSlot[] {
  const slots: TextSlot[] = [];
  for (const part of response.parts) {
    if (part.type === "text" || part.type === "reasoning" || part.type === "refusal") {
      slots.push({ role: "assistant", text: part.text, set: (value) => void (part.text = value) });
    } else if (part.type === "tool-call") {
      jsonSlots("assistant", part.arguments, (value) => void (part.arguments = value), slots);
    } else if (part.type === "audio" && part.transcript !== undefined) {
      // No placeholder can be spoken into the audio: a redacted transcript goes out without the audio (nor the
      // upstream's id of it, which would fetch it back).
      slots.push({ role: "assistant", text: part.transcript, set: (value) => void (withoutAudio(part).transcript = value) });
    }
  }
  return slots;
}

/** Checks (and may rewrite) `response`; throws the 403 of a block. Entries go to `pipeline`. */
export async function guardResponse(response: CanonicalResponse, filters: readonly Filter[], pipeline: PipelineEntry[]): Promise<void> {
  const verdict = await scanSlots(responseSlots(response), filters, "output");
  pipeline.push(...pipelineEntries(verdict, "output"));
  if (verdict.blocks.length > 0) throw blockError(verdict.blocks, "output");
  applyRedactions(verdict.redactions);
}
