/** core/net/read-capped.ts: a body read up to a byte cap, the rest of the stream cancelled, not downloaded. */
import { describe, expect, test } from "bun:test";
import { readCapped } from "../../../core/net/read-capped.ts";

/** A response whose body yields `chunks`, recording how many were pulled and whether it was cancelled. */
function chunked(chunks: string[]) {
  const seen = { pulled: 0, cancelled: false };
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[seen.pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { response: new Response(body), seen };
}

describe("readCapped", () => {
  test("a body within the cap is read whole", async () => {
    const { response, seen } = chunked(["hello ", "world"]);
    const { bytes, truncated } = await readCapped(response, 11);
    expect(new TextDecoder().decode(bytes)).toBe("hello world");
    expect(truncated).toBe(false);
    expect(seen.cancelled).toBe(false);
  });

  test("a longer body stops at the cap, says so, and the rest is never pulled", async () => {
    const { response, seen } = chunked(["abcd", "efgh", "ijkl", "mnop"]);
    const { bytes, truncated } = await readCapped(response, 6);
    expect(new TextDecoder().decode(bytes)).toBe("abcdef");
    expect(truncated).toBe(true);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(4);
  });

  test("no body is empty", async () => {
    expect(await readCapped(new Response(null), 10)).toEqual({ bytes: new Uint8Array(0), truncated: false });
  });
});
