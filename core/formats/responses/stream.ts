/**
 * Canonical events → Responses SSE frames (spec "Events"), relayed one event at a time. The stream
 * always ends with a lifecycle event (`response.completed`, `response.incomplete` or `response.failed`) and then
 * `data: [DONE]`; a failure of the event source itself becomes `response.failed`, never a silent cut.
 */
import { toGatewayError } from "../../errors.ts";
import type { EventStream } from "../../model/events.ts";
import type { EncodeContext } from "../format.ts";
import { ResponsesStreamEncoder } from "./stream-encoder.ts";

/** The terminal sentinel every Responses stream ends with. */
export const DONE_FRAME = "data: [DONE]\n\n";

/** Renders the canonical stream; stops reading the source after an `error` event (it is always the last one). */
export async function* streamResponses(events: EventStream, ctx: EncodeContext): AsyncGenerator<string, void, undefined> {
  const encoder = new ResponsesStreamEncoder(ctx);
  try {
    for await (const event of events) {
      for (const frame of encoder.handle(event)) yield frame;
      // Leaving the loop calls the source's return(), which releases (and aborts) the upstream.
      if (encoder.done) break;
    }
  } catch (thrown) {
    for (const frame of encoder.handle({ type: "error", error: toGatewayError(thrown) })) yield frame;
  }
  for (const frame of encoder.end()) yield frame;
  yield DONE_FRAME;
}
