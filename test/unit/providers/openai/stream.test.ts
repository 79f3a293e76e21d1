import { describe, expect, test } from "bun:test";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { ProviderCall } from "../../../../core/registry/provider.ts";
import { chatStreamToEvents } from "../../../../providers/openai/stream.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { drain, providerCall, streamOf, target } from "../helpers.ts";

const call = providerCall({ target: target({ providerId: "openai-main", upstreamModel: "gpt-4o" }) });
const head = { id: "chatcmpl-123", object: "chat.completion.chunk", created: 1694268190, model: "gpt-4o-mini", system_fingerprint: "fp_44709d6fcb" };

/** SSE wire text of chunks as OpenAI writes them (`data: {json}\n\n`), `[DONE]` included when given. */
function sse(chunks: Array<Record<string, unknown> | "[DONE]">): string {
  return chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify({ ...head, ...c })}\n\n`).join("");
}

const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta: d, logprobs: null, finish_reason }] });
const usage = (u: Record<string, unknown>) => ({ choices: [], usage: u });

async function events(wire: string | string[], c: ProviderCall = call): Promise<StreamEvent[]> {
  return drain(chatStreamToEvents(parseSse(streamOf(Array.isArray(wire) ? wire : [wire])), c));
}

const start: StreamEvent = { type: "start", id: "chatcmpl-123", model: "gpt-4o-mini", provider: "openai-main", created: 1694268190 };

describe("chatStreamToEvents", () => {
  test("text stream: start, one text part, usage, finish", async () => {
    const wire = sse([
      delta({ role: "assistant", content: "", refusal: null }),
      delta({ content: "Hello" }),
      delta({ content: " world" }),
      delta({}, "stop"),
      usage({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } }),
      "[DONE]",
    ]);
    expect(await events(wire)).toEqual([
      start,
      { type: "text-start", id: "text_0" },
      { type: "text-delta", id: "text_0", delta: "Hello" },
      { type: "text-delta", id: "text_0", delta: " world" },
      { type: "text-end", id: "text_0" },
      {
        type: "usage",
        usage: {
          input: { total: 9, cacheRead: 0, cacheWrite: 0 },
          output: { total: 2, reasoning: 0 },
          raw: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
        },
      },
      { type: "finish", finish: { reason: "stop", raw: "stop" } },
    ]);
  });

  test("two parallel tool calls with arguments split over several chunks; ids from the first delta", async () => {
    const wire = sse([
      delta({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", type: "function", function: { name: "get_weather", arguments: "" } }], refusal: null }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"lo' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: 'cation": "Pa' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }),
      delta({ tool_calls: [{ index: 1, id: "call_ABC", type: "function", function: { name: "get_time", arguments: "" } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: '{"tz":' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: '"CET"}' } }] }),
      delta({}, "tool_calls"),
      usage({ prompt_tokens: 80, completion_tokens: 40, total_tokens: 120 }),
      "[DONE]",
    ]);
    const out = await events(wire);
    expect(out.filter((e) => e.type.startsWith("tool-call"))).toEqual([
      { type: "tool-call-start", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather" },
      { type: "tool-call-delta", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", delta: '{"lo' },
      { type: "tool-call-delta", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", delta: 'cation": "Pa' },
      { type: "tool-call-delta", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", delta: 'ris"}' },
      { type: "tool-call-end", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA" },
      { type: "tool-call-start", id: "call_ABC", name: "get_time" },
      { type: "tool-call-delta", id: "call_ABC", delta: '{"tz":' },
      { type: "tool-call-delta", id: "call_ABC", delta: '"CET"}' },
      { type: "tool-call-end", id: "call_ABC" },
    ]);
    const response = await collect((async function* () { yield* out; })());
    expect(response.parts).toEqual([
      { type: "tool-call", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", arguments: '{"location": "Paris"}' },
      { type: "tool-call", id: "call_ABC", name: "get_time", arguments: '{"tz":"CET"}' },
    ]);
    expect(response.finish).toEqual({ reason: "tool_calls", raw: "tool_calls" });
  });

  test("usage with cached and reasoning tokens; reasoning streamed before text", async () => {
    const wire = sse([
      delta({ role: "assistant", reasoning: "Let me " }),
      delta({ reasoning: "think." }),
      delta({ content: "42" }),
      delta({}, "stop"),
      usage({ prompt_tokens: 1200, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 256 } }),
      "[DONE]",
    ]);
    const out = await events(wire);
    expect(out.slice(1, 7)).toEqual([
      { type: "reasoning-start", id: "reasoning_0" },
      { type: "reasoning-delta", id: "reasoning_0", delta: "Let me " },
      { type: "reasoning-delta", id: "reasoning_0", delta: "think." },
      { type: "reasoning-end", id: "reasoning_0" },
      { type: "text-start", id: "text_0" },
      { type: "text-delta", id: "text_0", delta: "42" },
    ]);
    const usageEvent = out.find((e) => e.type === "usage");
    expect(usageEvent?.type === "usage" && [usageEvent.usage.input, usageEvent.usage.output]).toEqual([
      { total: 1200, cacheRead: 1024, cacheWrite: 0 },
      { total: 300, reasoning: 256 },
    ]);
  });

  test("reasoning_details fragments: one part per detail index, signature carried on reasoning-end", async () => {
    const wire = sse([
      delta({ role: "assistant", reasoning: "Hm", reasoning_details: [{ type: "reasoning.text", text: "Hm", format: "anthropic-claude-v1", index: 0 }] }),
      delta({ reasoning: ", yes", reasoning_details: [{ type: "reasoning.text", text: ", yes", format: "anthropic-claude-v1", index: 0 }] }),
      delta({ reasoning_details: [{ type: "reasoning.text", signature: "EqQB", format: "anthropic-claude-v1", index: 0 }] }),
      delta({ reasoning_details: [{ type: "reasoning.encrypted", data: "REDACTED", format: "anthropic-claude-v1", index: 1 }] }),
      delta({ content: "Yes." }, "stop"),
      "[DONE]",
    ]);
    const response = await collect((async function* () { yield* await events(wire); })());
    expect(response.parts).toEqual([
      { type: "reasoning", text: "Hm, yes", format: "anthropic-claude-v1", signature: "EqQB" },
      { type: "reasoning", text: "", format: "anthropic-claude-v1", encrypted: "REDACTED" },
      { type: "text", text: "Yes." },
    ]);
  });

  test("finish reasons are unified with the raw value kept (native_finish_reason preferred)", async () => {
    const finishOf = async (reason: string, native?: string) => {
      const out = await events(sse([{ choices: [{ index: 0, delta: { content: "x" }, finish_reason: reason, native_finish_reason: native }] }, "[DONE]"]));
      const last = out[out.length - 1];
      return last?.type === "finish" ? last.finish : undefined;
    };
    expect(await finishOf("length")).toEqual({ reason: "length", raw: "length" });
    expect(await finishOf("content_filter")).toEqual({ reason: "content_filter", raw: "content_filter" });
    expect(await finishOf("stop", "end_turn")).toEqual({ reason: "stop", raw: "end_turn" });
    expect(await finishOf("weird")).toEqual({ reason: "other", raw: "weird" });
  });

  test("a chunk with a top-level error becomes the error event and ends the stream", async () => {
    const wire = sse([
      delta({ content: "partial" }),
      { error: { code: 502, message: "Provider disconnected", metadata: { error_type: "provider_unavailable", provider_code: "ECONNRESET" } }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] },
      delta({ content: "never seen" }),
    ]);
    const out = await events(wire);
    const last = out[out.length - 1];
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "error"]);
    expect(last?.type === "error" && [last.error.type, last.error.message, last.error.metadata?.provider_code]).toEqual([
      "provider_unavailable",
      "Provider disconnected",
      "ECONNRESET",
    ]);
  });

  test("an error chunk without a canonical error_type maps its numeric code like a status", async () => {
    const out = await events(sse([{ error: { code: 429, message: "Rate limited" } }]));
    const last = out[out.length - 1];
    expect(last?.type === "error" && [last.error.type, last.error.status]).toEqual(["rate_limit_exceeded", 429]);
  });

  test("a stream cut before finish_reason and [DONE] ends with an error, never silently", async () => {
    const out = await events(sse([delta({ role: "assistant", content: "Hel" }), delta({ content: "lo" })]));
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "text-delta", "error"]);
    const last = out[out.length - 1];
    expect(last?.type === "error" && [last.error.type, last.error.status, last.error.message]).toEqual([
      "provider_unavailable",
      502,
      "upstream stream ended unexpectedly",
    ]);
  });

  test("an empty stream still starts, then errors", async () => {
    const out = await events("");
    expect(out.map((e) => e.type)).toEqual(["start", "error"]);
    expect(out[0]).toEqual({ type: "start", id: "", model: "gpt-4o", provider: "openai-main", created: 1_700_000_000 });
  });

  test("a finish without [DONE] (or without usage) is a proper end", async () => {
    const out = await events(sse([delta({ content: "ok" }, "stop")]));
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "text-end", "finish"]);
  });

  test("[DONE] without a finish_reason finishes as other", async () => {
    const out = await events(sse([delta({ content: "ok" }), "[DONE]"]));
    expect(out[out.length - 1]).toEqual({ type: "finish", finish: { reason: "other" } });
  });

  test("malformed chunk data is an error event", async () => {
    const out = await events(`data: ${JSON.stringify({ ...head, ...delta({ content: "a" }) })}\n\ndata: {not json\n\n`);
    expect(out.map((e) => e.type)).toEqual(["start", "text-start", "text-delta", "error"]);
  });

  test("refusal deltas and logprobs", async () => {
    const logprobs = [{ token: "No", logprob: -0.01, bytes: [78, 111], top_logprobs: [] }];
    const out = await events(
      sse([
        { choices: [{ index: 0, delta: { content: "No" }, logprobs: { content: logprobs }, finish_reason: null }] },
        delta({ refusal: "I can't help with that." }, "stop"),
        "[DONE]",
      ]),
    );
    expect(out).toContainEqual({ type: "text-delta", id: "text_0", delta: "No", logprobs });
    expect(out).toContainEqual({ type: "refusal-delta", id: "refusal_0", delta: "I can't help with that." });
  });

  test("a server reusing index 0 for every call: a new id starts a new call", async () => {
    const wire = sse([
      delta({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: "{}" } }] }),
      delta({ tool_calls: [{ index: 0, id: "b", function: { name: "g", arguments: "{}" } }] }),
      delta({}, "tool_calls"),
    ]);
    const response = await collect(chatStreamToEvents(parseSse(streamOf([wire])), call));
    expect(response.parts).toEqual([
      { type: "tool-call", id: "a", name: "f", arguments: "{}" },
      { type: "tool-call", id: "b", name: "g", arguments: "{}" },
    ]);
  });

  test("stream ≡ collect(stream): the collected stream equals the non-streamed parts", async () => {
    const wire = sse([
      delta({ role: "assistant", reasoning: "r" }),
      delta({ content: "Sure: " }),
      delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: '{"a":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      delta({}, "tool_calls"),
      usage({ prompt_tokens: 5, completion_tokens: 7 }),
      "[DONE]",
    ]);
    const response = await collect(chatStreamToEvents(parseSse(streamOf([wire])), call));
    expect(response.parts).toEqual([
      { type: "reasoning", text: "r" },
      { type: "text", text: "Sure: " },
      { type: "tool-call", id: "call_1", name: "f", arguments: '{"a":1}' },
    ]);
    expect(response.usage.output.total).toBe(7);
    expect(response.finish.reason).toBe("tool_calls");
  });

  test("a connection reset mid-stream is an in-band provider_unavailable", async () => {
    const encoder = new TextEncoder();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(Object.assign(new TypeError("socket closed"), { code: "ECONNRESET" }));
        sent = true;
        controller.enqueue(encoder.encode(sse([delta({ content: "a" })])));
      },
    });
    const out = await drain(chatStreamToEvents(parseSse(body), call));
    const last = out[out.length - 1];
    expect(last?.type === "error" && [last.error.type, last.error.metadata?.provider_code]).toEqual(["provider_unavailable", "ECONNRESET"]);
  });

  test("a client abort mid-stream is rethrown as-is", async () => {
    const controller = new AbortController();
    const reason = new Error("client disconnected");
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent) {
          controller.abort(reason);
          return c.error(reason);
        }
        sent = true;
        c.enqueue(new TextEncoder().encode(sse([delta({ content: "a" })])));
      },
    });
    const error = await drain(chatStreamToEvents(parseSse(body), providerCall({ signal: controller.signal }))).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  test("an Azure-style leading chunk without choices does not supply the identity", async () => {
    const wire =
      `data: ${JSON.stringify({ id: "", object: "", created: 0, model: "", choices: [], prompt_filter_results: [{ prompt_index: 0 }] })}\n\n` +
      sse([delta({ content: "hi" }, "stop"), "[DONE]"]);
    const out = await events(wire);
    expect(out[0]).toEqual(start);
  });

  test("stopping iteration early cancels the upstream body", async () => {
    let cancelled = false;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(encoder.encode(sse([delta({ content: "tick" })])));
      },
      cancel() {
        cancelled = true;
      },
    });
    const it = chatStreamToEvents(parseSse(body), call);
    for await (const event of it) {
      if (event.type === "text-delta") break;
    }
    expect(cancelled).toBe(true);
  });
});
