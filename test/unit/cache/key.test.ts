/** The response cache's key (core/cache/key.ts): what makes two requests the same, and what keeps them apart. */
import { describe, expect, test } from "bun:test";
import { cacheKeyOf, stableJson, workspaceGroups } from "../../../core/cache/key.ts";
import { canonicalRequest } from "../pipeline/helpers.ts";

const base = () => canonicalRequest({ model: "acme/a", messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] });

describe("cache key", () => {
  test("stableJson sorts object keys at every depth and leaves out undefined members", () => {
    expect(stableJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(stableJson({ a: 1, b: 2 })).toBe(stableJson({ b: 2, a: 1 }));
  });

  test("stream, user, metadata, session, trace, debug, warnings and the original body do not change it", () => {
    const key = cacheKeyOf("ws", base()).key;
    const other = { ...base(), stream: true, includeUsage: true, user: "u", metadata: { a: "b" }, sessionId: "s", trace: { t: 1 }, debug: { echoUpstreamBody: true }, warnings: [{ code: "x", message: "y" }], original: { x: 1 } };
    expect(cacheKeyOf("ws", other).key).toBe(key);
  });

  test("the workspace, the model, the messages, sampling, tools and the format do", () => {
    const key = cacheKeyOf("ws", base()).key;
    expect(cacheKeyOf("other", base()).key).not.toBe(key);
    expect(cacheKeyOf("ws", { ...base(), model: "acme/b" }).key).not.toBe(key);
    expect(cacheKeyOf("ws", { ...base(), messages: [{ role: "user", parts: [{ type: "text", text: "hi!" }] }] }).key).not.toBe(key);
    expect(cacheKeyOf("ws", { ...base(), sampling: { temperature: 0.5 } }).key).not.toBe(key);
    expect(cacheKeyOf("ws", { ...base(), tools: [{ kind: "function", name: "f" }] }).key).not.toBe(key);
    expect(cacheKeyOf("ws", { ...base(), format: "responses" }).key).not.toBe(key);
  });

  test("an entry is filed under its workspace and under the workspace's requested model", () => {
    expect(cacheKeyOf("ws", base()).groups).toEqual(workspaceGroups("ws", "acme/a"));
    expect(workspaceGroups("ws", "acme/a")[1]).not.toBe(workspaceGroups("ws2", "acme/a")[1]);
  });
});
