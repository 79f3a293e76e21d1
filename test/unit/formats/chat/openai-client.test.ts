/**
 * The `openai` npm client reads what the chat format writes (no port: the client gets an injected fetch that decodes
 * its request body with chatFormat and answers with our encoder's output).
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";
import { GatewayError } from "../../../../core/errors.ts";
import { chatFormat } from "../../../../core/formats/chat/index.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { FinishReason } from "../../../../core/model/response.ts";
import { formatClient } from "../openai-client.ts";

const EVENTS: StreamEvent[] = [
  { type: "start", id: "up", model: "openai/gpt-4o", provider: "OpenAI", created: 1_700_000_000 },
  { type: "text-delta", id: "t", delta: "Calling " },
  { type: "text-delta", id: "t", delta: "tools." },
  { type: "tool-call-start", id: "call_1", name: "add" },
  { type: "tool-call-delta", id: "call_1", delta: '{"a":1,' },
  { type: "tool-call-delta", id: "call_1", delta: '"b":2}' },
  { type: "usage", usage: { input: { total: 9, cacheRead: 0, cacheWrite: 0 }, output: { total: 7, reasoning: 0 } } },
  { type: "finish", finish: { reason: "tool_calls", raw: "tool_calls" } },
];

function client(events: StreamEvent[], seen: CanonicalRequest[] = []) {
  return formatClient(chatFormat, events, seen);
}

const params = {
  model: "openai/gpt-4o",
  messages: [{ role: "user" as const, content: "add 1 and 2" }],
  tools: [{ type: "function" as const, function: { name: "add", parameters: { type: "object", properties: {} } } }],
};

describe("openai npm client", () => {
  test("non-streaming: the body parses and the request decoded", async () => {
    const seen: CanonicalRequest[] = [];
    const completion = await client(EVENTS, seen).chat.completions.create({ ...params, max_completion_tokens: 64 });
    expect(seen[0]?.maxTokens).toBe(64);
    expect(seen[0]?.warnings).toEqual([]);
    expect(completion.id).toBe("gen-client");
    expect(completion.choices[0]?.message.content).toBe("Calling tools.");
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: "call_1", function: { name: "add", arguments: '{"a":1,"b":2}' } });
    expect(completion.usage?.total_tokens).toBe(16);
  });

  test("streaming: the client's own accumulator rebuilds content and tool calls", async () => {
    const runner = client(EVENTS).chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("Calling tools.");
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } });
    expect(final.usage?.prompt_tokens).toBe(9);
  });

  test("streaming: an in-band error chunk surfaces as an APIError", async () => {
    const failing: StreamEvent[] = [
      EVENTS[0] as StreamEvent,
      { type: "text-delta", id: "t", delta: "par" },
      { type: "error", error: new GatewayError("provider_unavailable", "Provider returned error") },
    ];
    const stream = await client(failing).chat.completions.create({ ...params, stream: true });
    let caught: unknown;
    try {
      for await (const _chunk of stream) {
        // draining until the error chunk
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    expect(String((caught as Error).message)).toContain("Provider returned error");
  });
});

describe("finish reasons, as the openai client reads them", () => {
  /** Every canonical finish reason, with an upstream value that would produce it. */
  const UPSTREAM: Record<FinishReason, string> = {
    stop: "end_turn",
    length: "max_tokens",
    tool_calls: "tool_use",
    content_filter: "SAFETY",
    refusal: "refusal",
    pause: "pause_turn",
    context_window: "model_context_window_exceeded",
    error: "error",
    other: "FINISH_REASON_UNSPECIFIED",
  };
  const reasons = Object.keys(UPSTREAM) as FinishReason[];
  const finishing = (reason: FinishReason): StreamEvent[] => [EVENTS[0]!, { type: "text-delta", id: "t", delta: "An answer." }, EVENTS[6]!, { type: "finish", finish: { reason, raw: UPSTREAM[reason] } }];
  const plain = { model: "openai/gpt-4o", messages: [{ role: "user" as const, content: "hi" }] };

  /** What parse() makes of the answer: the error class it throws, or "parsed". */
  async function parsed(reason: FinishReason): Promise<string> {
    try {
      await client(finishing(reason)).chat.completions.parse(plain);
      return "parsed";
    } catch (error) {
      return (error as Error).constructor.name;
    }
  }

  test("an answer cut short (length, context window) is a LengthFinishReasonError to parse(); a filtered or refused one a ContentFilterFinishReasonError; the others parse", async () => {
    const outcomes = Object.fromEntries(await Promise.all(reasons.map(async (reason) => [reason, await parsed(reason)] as const)));
    expect(outcomes).toEqual({
      stop: "parsed",
      length: LengthFinishReasonError.name,
      tool_calls: "parsed",
      content_filter: ContentFilterFinishReasonError.name,
      refusal: ContentFilterFinishReasonError.name,
      pause: "parsed",
      context_window: LengthFinishReasonError.name,
      error: "parsed",
      other: "parsed",
    });
  });

  test("whatever chat calls it, the upstream's own value reaches the client as native_finish_reason, streamed or not", async () => {
    for (const reason of reasons) {
      const body = (await client(finishing(reason)).chat.completions.create(plain)) as unknown as { choices: Array<{ native_finish_reason: string }> };
      expect({ reason, native: body.choices[0]?.native_finish_reason }).toEqual({ reason, native: UPSTREAM[reason] });
      const stream = await client(finishing(reason)).chat.completions.create({ ...plain, stream: true });
      let native: unknown;
      for await (const chunk of stream) native = (chunk.choices[0] as { native_finish_reason?: unknown } | undefined)?.native_finish_reason ?? native;
      expect({ reason, native }).toEqual({ reason, native: UPSTREAM[reason] });
    }
  });
});
