/** Span shapes: one node per combination of values, told apart exactly, and levels that stay bounded. */
import { describe, expect, test } from "bun:test";
import { ShapeNode } from "../../../core/observe/tracing/span-shapes.ts";

describe("span shapes", () => {
  test("the same values lead to the same node; values that would read alike when joined lead apart", () => {
    const root = new ShapeNode();
    const node = root.at("a").at(200).at(undefined);
    node.shape = new Uint8Array([1]);
    expect(root.at("a").at(200).at(undefined).shape).toEqual(new Uint8Array([1]));
    for (const other of [root.at("a").at(200).at(""), root.at("a").at("200").at(undefined), root.at("a\u0001200").at(undefined), root.at("a").at(200).at(null)]) {
      expect(other).not.toBe(node);
      expect(other.shape).toBeUndefined();
    }
  });

  test("a level empties itself when full instead of growing", () => {
    const root = new ShapeNode();
    const first = root.at("model-0");
    first.shape = new Uint8Array([7]);
    for (let i = 1; i < 256; i++) root.at(`model-${i}`);
    expect(root.at("model-0")).toBe(first);
    root.at("one more");
    expect(root.at("model-0")).not.toBe(first);
    expect(root.at("model-0").shape).toBeUndefined();
  });
});
