/** A recorded stream: every reader gets every chunk from the first, a late one catching up, then the rest live. */
import { expect, test } from "bun:test";
import { Recording } from "../../../core/idempotency/recording.ts";

const encoder = new TextEncoder();

function paced(parts: string[], ms: number, breakAt?: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      await Bun.sleep(ms);
      if (i === breakAt) return controller.error(new Error("source broke"));
      if (i >= parts.length) return controller.close();
      controller.enqueue(encoder.encode(parts[i++]!));
    },
  });
}

test("an early and a late reader read the same bytes; the recording goes on without readers", async () => {
  const recording = new Recording();
  const early = new Response(recording.reader()).text();
  const done = recording.record(paced(["a", "b", "c", "d"], 20));
  await Bun.sleep(50);
  const late = new Response(recording.reader()).text();
  // A reader that leaves does not stop the recording.
  await recording.reader().cancel();
  await done;
  expect(await early).toBe("abcd");
  expect(await late).toBe("abcd");
  expect(recording.text()).toBe("abcd");
  expect(recording.broken).toBe(false);
  expect(await new Response(recording.reader()).text()).toBe("abcd");
});

test("a source that breaks off marks the recording broken, and its readers end", async () => {
  const recording = new Recording();
  const reader = new Response(recording.reader()).text();
  await recording.record(paced(["a", "b", "c"], 5, 2));
  expect(recording.broken).toBe(true);
  expect(await reader).toBe("ab");
});
