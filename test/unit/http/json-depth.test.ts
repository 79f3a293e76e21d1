/** The nesting scanner counts brackets outside strings only, whatever the chunks it is fed (core/http/json-depth.ts). */
import { describe, expect, test } from "bun:test";
import { JsonDepthScanner, withinDepth } from "../../../core/http/json-depth.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** The verdict when `text` arrives one byte at a time (every escape and string boundary straddles a chunk). */
function byteByByte(text: string, maxDepth: number): boolean {
  const scanner = new JsonDepthScanner(maxDepth);
  for (const byte of bytes(text)) if (!scanner.feed(new Uint8Array([byte]))) return false;
  return true;
}

const CASES: ReadonlyArray<readonly [string, string, number, boolean]> = [
  ["objects and arrays both count", '{"a":[{"b":[]}]}', 4, true],
  ["one level over", '{"a":[{"b":[]}]}', 3, false],
  ["brackets in a string do not count", '["[[[[{{{{"]', 1, true],
  ["an escaped quote does not end the string", '["\\"[[[["]', 1, true],
  ["an escaped backslash before a quote does end it", '["\\\\",[[]]]', 2, false],
  ["multi-byte characters are opaque", '["é€😀[[[["]', 1, true],
  ["siblings do not add up", "[[],[],[[]]]", 3, true],
];

describe("JsonDepthScanner", () => {
  for (const [name, text, maxDepth, within] of CASES) {
    test(name, () => {
      expect(withinDepth(bytes(text), maxDepth)).toBe(within);
      expect(byteByByte(text, maxDepth)).toBe(within);
    });
  }

  test("stays linear on a string made of escapes", () => {
    const text = JSON.stringify(["\n".repeat(2_000_000)]);
    const started = performance.now();
    expect(withinDepth(bytes(text), 1)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
