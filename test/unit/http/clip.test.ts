/** What the gateway repeats of a client's strings is bounded (core/http/clip.ts). */
import { expect, test } from "bun:test";
import { clip, clipMessage, clipStrings } from "../../../core/http/clip.ts";

test("clip keeps short text, cuts long text at 256 characters plus an ellipsis, never inside a surrogate pair", () => {
  expect(clip("short")).toBe("short");
  expect(clip("x".repeat(256))).toBe("x".repeat(256));
  expect(clip("x".repeat(300))).toBe(`${"x".repeat(256)}…`);
  const emoji = `${"x".repeat(255)}😀tail`;
  expect(clip(emoji)).toBe(`${"x".repeat(255)}…`);
});

test("clipMessage clips each over-long word and the whole message", () => {
  expect(clipMessage('Model "abc" is not available')).toBe('Model "abc" is not available');
  const long = `Model "${"m".repeat(10_000)}" is not available`;
  expect(clipMessage(long)).toBe(`Model "${"m".repeat(257)}… is not available`);
  const words = "word ".repeat(1000);
  expect(clipMessage(words).length).toBe(1025);
});

test("clipStrings clips nested strings and keys, and returns the same object when nothing is long", () => {
  const small = { a: ["b", { c: "d" }], n: 1 };
  expect(clipStrings(small)).toBe(small);
  const big = { models: ["ok", "y".repeat(1000)], ["k".repeat(300)]: "v" };
  const clipped = clipStrings(big);
  expect(clipped.models).toEqual(["ok", `${"y".repeat(256)}…`]);
  expect(Object.keys(clipped)).toContain(`${"k".repeat(256)}…`);
  expect(big.models[1]).toHaveLength(1000);
});
