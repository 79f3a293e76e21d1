/** core/model/tokens.ts: a message and the fixed part of a prompt count the same in one go and in slices, with an early stop. */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Message } from "../../../core/model/parts.ts";
import type { Tool } from "../../../core/model/request.ts";
import { byteBound, FILE_TOKENS, fixedTokens, IMAGE_TOKENS, MESSAGE_OVERHEAD, messageTokens, REPLY_PRIMING, tokenizer, type Tokenizer } from "../../../core/model/tokens.ts";

let tk: Tokenizer;
beforeAll(async () => void (tk = await tokenizer()));

/** One message with every kind of part. */
const everything: Message = {
  role: "assistant",
  name: "helper",
  parts: [
    { type: "text", text: "Some text" },
    { type: "refusal", text: "I cannot" },
    { type: "reasoning", text: "thinking", summary: ["first", "second"] },
    { type: "image", url: "https://example.com/a.png" },
    { type: "file", data: "data:application/pdf;base64,AAAA" },
    { type: "tool-call", id: "c1", name: "lookup", arguments: '{"q":"x"}' },
    { type: "tool-result", callId: "c1", content: "a result" },
    { type: "tool-result", callId: "c2", content: [{ type: "text", text: "rich" }, { type: "image", url: "https://example.com/b.png" }] },
    { type: "server-tool", id: "st_1", callId: "c3", name: "service:datetime", arguments: "{}", result: { now: "noon" } },
    { type: "audio", data: "AAAA", transcript: "spoken words" },
  ],
} as Message;

describe("messages", () => {
  test("every part counts the same under both measures, in one go and in slices", async () => {
    const exact = messageTokens(everything, tk.count);
    expect(exact).toBeGreaterThan(MESSAGE_OVERHEAD + 2 * IMAGE_TOKENS + FILE_TOKENS);
    expect(await tk.sliced().message(everything)).toBe(exact);
    expect(messageTokens(everything, byteBound)).toBeGreaterThanOrEqual(exact);
  });

  test("system prompt and tools, in one go and in slices", async () => {
    const tools: Tool[] = [{ kind: "function", name: "lookup", description: "Looks things up", parameters: { type: "object" } }];
    const system = [{ type: "text" as const, text: "Be brief." }];
    const exact = fixedTokens(system, tools, tk.count);
    expect(exact).toBeGreaterThan(REPLY_PRIMING + MESSAGE_OVERHEAD);
    expect(await tk.sliced().fixed(system, tools)).toBe(exact);
    expect(await tk.sliced().fixed([], [])).toBe(REPLY_PRIMING);
  });

  test("with a limit, a huge message is read only until it is past it", async () => {
    const huge: Message = { role: "user", parts: [{ type: "text", text: "word ".repeat(2_000_000) }, { type: "text", text: "more ".repeat(2_000_000) }] };
    const count = await tk.sliced().message(huge, 500);
    expect(count).toBeGreaterThan(500);
    expect(count).toBeLessThan(50_000);
  });
});
