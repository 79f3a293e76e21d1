/**
 * A recorded reply: every reader gets every frame from the first, a late one catching up, then the rest live; past
 * its cap it keeps nothing and its readers fail rather than end on a truncated reply.
 */
import { expect, test } from "bun:test";
import { Recording } from "../../../core/idempotency/recording.ts";

test("an early and a late reader read the same frames, and the whole reply is kept", async () => {
  const recording = new Recording(1024);
  const early = new Response(recording.reader()).text();
  recording.add("a");
  recording.add("b");
  const late = new Response(recording.reader()).text();
  // A reader that leaves changes nothing for the others.
  await recording.reader()!.cancel();
  recording.add("c");
  recording.end(true);
  await recording.finished;
  expect(await early).toBe("abc");
  expect(await late).toBe("abc");
  expect(recording.kept()).toBe("abc");
  expect(await new Response(recording.reader()).text()).toBe("abc");
});

test("a reply of exactly the cap is kept; one byte more is not, and the cap runs its hook once", () => {
  const exact = new Recording(6);
  exact.add("abc");
  exact.add("déf".slice(0, 2)); // "dé": three bytes in UTF-8
  exact.end(true);
  expect(exact.kept()).toBe("abcdé");

  let passed = 0;
  const over = new Recording(6, () => passed++);
  over.add("abc");
  over.add("dé");
  over.add("f");
  over.add("g");
  over.end(true);
  expect(over.overCap).toBe(true);
  expect(over.whole).toBe(false);
  expect(over.kept()).toBeUndefined();
  expect(passed).toBe(1);
});

test("past the cap, a reader already reading fails and a new one gets nothing", async () => {
  const recording = new Recording(4);
  const reading = new Response(recording.reader()).text();
  recording.add("ab");
  recording.add("cde");
  await expect(reading).rejects.toThrow("cap");
  expect(recording.reader()).toBeUndefined();
});

test("a reply that broke off is not kept, and its readers fail instead of ending", async () => {
  const recording = new Recording(1024);
  const reading = new Response(recording.reader()).text();
  recording.add("a");
  recording.end(false);
  await expect(reading).rejects.toThrow("broke off");
  expect(recording.kept()).toBeUndefined();
});
