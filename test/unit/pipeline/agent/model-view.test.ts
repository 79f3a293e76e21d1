/** What the model is shown of a tool result: inline data URLs for the client become a short note; nothing else changes. */
import { describe, expect, test } from "bun:test";
import { forModel, inlineDataNote } from "../../../../core/pipeline/agent/model-view.ts";
import { resultForModel } from "../../../../core/pipeline/agent/tool-runner.ts";

const big = `data:image/png;base64,${"A".repeat(4000)}`;

describe("forModel", () => {
  test("a long base64 data URL anywhere in the result becomes a note with its type and decoded size", () => {
    const result = { status: "ok", imageUrl: big, prompt: "a fox", nested: [{ thumb: big }] };
    const note = inlineDataNote("image/png", 3000);
    expect(forModel(result)).toEqual({ status: "ok", imageUrl: note, prompt: "a fox", nested: [{ thumb: note }] });
    expect(note).toBe("[image/png, 3000 bytes: delivered to the user, not shown to you]");
    // The client's copy is untouched.
    expect(result.imageUrl).toBe(big);
  });

  test("short data URLs, other strings, http URLs and non-strings are kept, and an unchanged result is the same object", () => {
    const result = { icon: "data:image/png;base64,AAAA", url: `https://example.com/${"a".repeat(400)}`, text: `data: ${"x".repeat(400)}`, n: 3, ok: true, none: null };
    expect(forModel(result)).toBe(result);
    expect(forModel("plain")).toBe("plain");
  });

  test("resultForModel applies it to completed results only", () => {
    const part = { type: "server-tool" as const, id: "st_1", callId: "c1", name: "service:image_generation", arguments: "{}" };
    expect(JSON.parse(resultForModel({ ...part, status: "completed", result: { imageUrl: big } }))).toEqual({ imageUrl: inlineDataNote("image/png", 3000) });
    expect(JSON.parse(resultForModel({ ...part, status: "failed", error: "boom" }))).toEqual({ error: "boom" });
    // A replayed call without its result (the client kept only the envelope) is a `null` result, not missing content.
    expect(resultForModel({ ...part, status: "completed" })).toBe("null");
  });
});
