/** providers/azure/request.ts: what Azure's chat completions refuses is left out, with a warning, without touching the original. */
import { describe, expect, test } from "bun:test";
import { forAzureChat } from "../../../../providers/azure/request.ts";
import { canonicalRequest } from "../helpers.ts";

describe("forAzureChat", () => {
  test("nothing to leave out: the same request object, no warning", () => {
    const request = canonicalRequest({ sampling: { temperature: 0.2, topP: 0.9, seed: 3 } });
    expect(forAzureChat(request)).toBe(request);
    expect(request.warnings).toEqual([]);
  });

  test("top_k, min_p, repetition_penalty: left out with a warning each; the original keeps them (another endpoint may take them)", () => {
    const request = canonicalRequest({ sampling: { temperature: 0.2, topK: 5, minP: 0.1, repetitionPenalty: 1.1 } });
    const sent = forAzureChat(request);
    expect(sent.sampling).toEqual({ temperature: 0.2 });
    expect(request.sampling).toEqual({ temperature: 0.2, topK: 5, minP: 0.1, repetitionPenalty: 1.1 });
    expect(request.warnings.map((w) => w.field)).toEqual(["top_k", "min_p", "repetition_penalty"]);
    expect(sent.warnings).toBe(request.warnings);
  });

  test("reasoning in assistant turns: left out with one warning; the rest of each turn kept", () => {
    const request = canonicalRequest({
      messages: [
        { role: "user", parts: [{ type: "text", text: "Hi" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "think", signature: "sig" }, { type: "text", text: "Hello" }] },
        { role: "user", parts: [{ type: "text", text: "Again" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "more" }, { type: "tool-call", id: "c1", name: "f", arguments: "{}" }] },
      ],
    });
    const sent = forAzureChat(request);
    expect(sent.messages.map((m) => m.parts.map((p) => p.type))).toEqual([["text"], ["text"], ["text"], ["tool-call"]]);
    expect(request.messages[1]!.parts).toHaveLength(2);
    expect(request.warnings.map((w) => w.field)).toEqual(["messages.assistant.reasoning"]);
    expect(sent.messages[0]).toBe(request.messages[0]!);
  });
});
