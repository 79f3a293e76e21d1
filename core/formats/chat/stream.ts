/** Canonical events → chat-completions SSE frames. */
import { toGatewayError } from "../../errors.ts";
import type { EventStream } from "../../model/events.ts";
import type { EncodeContext } from "../format.ts";
import type { ChatChunk } from "./chunk.ts";
import { ChatStreamEncoder } from "./stream-encoder.ts";

/** The terminal frame of every chat stream. */
export const DONE_FRAME = "data: [DONE]\n\n";

/** One SSE frame for one chunk. */
export function chunkFrame(chunk: ChatChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * Relays each event as soon as it arrives (no buffering), then the usage chunk if asked for, then `[DONE]`. A thrown
 * upstream iterator becomes the in-band error chunk, exactly as `collect()` turns it into a response error.
 */
export async function* streamChat(events: EventStream, ctx: EncodeContext): AsyncGenerator<string> {
  const encoder = new ChatStreamEncoder(ctx);
  try {
    for await (const event of events) {
      const text = encoder.textChunkJson(event);
      if (text !== undefined) {
        yield `data: ${text}\n\n`;
        continue;
      }
      for (const chunk of encoder.handle(event)) yield chunkFrame(chunk);
      // The error chunk is terminal; leaving the loop also closes (and so aborts) the upstream iterator.
      if (encoder.done) break;
    }
  } catch (thrown) {
    if (!encoder.done) {
      for (const chunk of encoder.handle({ type: "error", error: toGatewayError(thrown) })) yield chunkFrame(chunk);
    }
  }
  for (const chunk of encoder.end()) yield chunkFrame(chunk);
  yield DONE_FRAME;
}
