/**
 * The request bodies of the benches: the same bytes at every target (only the URL and the headers differ). The
 * simulator answers `[sim tokens=N]` with N tokens, one per stream chunk, `delay=D` ms apart.
 */
export const MODEL = "bench/small";

const chat = (content: string, stream: boolean) =>
  JSON.stringify({
    model: MODEL,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    messages: [{ role: "user", content }],
  });

export const BODIES = {
  /** A plain non-streamed request (16 tokens of answer). */
  plain: chat("Benchmark request, please answer [sim tokens=16]", false),
  /** A short stream, as in a burst of many (16 chunks). */
  burst: chat("Benchmark short stream [sim tokens=16]", true),
  /** A long stream (200 chunks, as fast as the upstream sends them): the relay's per-chunk cost. */
  long: chat("Benchmark stream with many chunks [sim tokens=200]", true),
  /**
   * A slow stream (10 chunks 200 ms apart, ~2 s): thousands held open at once. Few chunks, so the load generator's
   * own reading is no bottleneck; the per-chunk cost is what `long` measures.
   */
  slow: chat("Benchmark slow stream [sim tokens=10 delay=200]", true),
};

/** How many SSE events (`data:` lines) a stream's bytes hold. */
export function countEvents(text: string): number {
  let count = 0;
  for (let at = text.indexOf("data:"); at !== -1; at = text.indexOf("data:", at + 5)) count++;
  return count;
}
