/**
 * Canonical events → Messages SSE: `message_start`, `content_block_start|delta|stop`,
 * `message_delta`, `message_stop`, and an in-band `error` event. Every frame is named (`event: X`), because
 * Anthropic's SDK skips unnamed ones. There is no `[DONE]`: Anthropic streams end after `message_stop`.
 * The frames come from the stream encoder (./stream-encoder.ts).
 */
import type { EventStream } from "../../model/events.ts";
import type { EncodeContext } from "../format.ts";
import { MessagesStreamEncoder } from "./stream-encoder.ts";

/** Keep-alive frame Anthropic itself sends; the SDK skips it. */
export const PING_FRAME = 'event: ping\ndata: {"type": "ping"}\n\n';

/** Relays canonical events as Messages SSE frames, one by one as they arrive. */
export async function* streamMessages(events: EventStream, ctx: EncodeContext): AsyncGenerator<string> {
  const encoder = new MessagesStreamEncoder(ctx);
  try {
    for await (const event of events) {
      if (event.type === "error") {
        yield encoder.error(event.error);
        return;
      }
      yield* encoder.handle(event);
    }
  } catch (thrown) {
    yield encoder.error(thrown);
    return;
  }
  yield* encoder.end();
}
