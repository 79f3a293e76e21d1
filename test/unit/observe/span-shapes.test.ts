/** Span shapes: which values may join a shape's key, and a cache that stays bounded. */
import { describe, expect, test } from "bun:test";
import { keyable, NONE, SEP, ShapeCache } from "../../../core/observe/tracing/span-shapes.ts";

describe("span shapes", () => {
  test("a value holding the separator or the absent mark, or longer than 256 characters, never joins a key", () => {
    expect(keyable(undefined)).toBe(true);
    expect(keyable("acme/model-x")).toBe(true);
    expect(keyable("x".repeat(256))).toBe(true);
    expect(keyable("x".repeat(257))).toBe(false);
    expect(keyable(`a${SEP}b`)).toBe(false);
    expect(keyable(`a${NONE}`)).toBe(false);
  });

  test("the cache keeps what it was given and empties itself when full instead of growing", () => {
    const cache = new ShapeCache();
    const first = new Uint8Array([1, 2, 3]);
    expect(cache.keep("k0", first)).toBe(first);
    expect(cache.get("k0")).toBe(first);
    for (let i = 1; i < 1024; i++) cache.keep(`k${i}`, new Uint8Array([i & 255]));
    expect(cache.get("k0")).toBe(first);
    cache.keep("one more", new Uint8Array([9]));
    expect(cache.get("k0")).toBeUndefined();
    expect(cache.get("one more")).toEqual(new Uint8Array([9]));
  });
});
