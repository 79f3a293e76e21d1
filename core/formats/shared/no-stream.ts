/** `stream` of a format whose requests never stream (embeddings, rerank: their decoders set `stream: false`). */
import type { EventStream } from "../../model/events.ts";

// eslint-disable-next-line require-yield -- it has nothing to yield: reaching it is a bug.
export async function* refuseStream(_events: EventStream): AsyncGenerator<string> {
  throw new Error("this format has no stream: its requests are never streamed");
}
