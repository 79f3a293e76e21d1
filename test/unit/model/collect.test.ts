/** core/model/collect.ts: folding a canonical event stream into one canonical response. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import { ResponseBuilder, collect } from "../../../core/model/collect.ts";
import type { Usage } from "../../../core/model/usage.ts";

async function* replay(events: readonly StreamEvent[]): AsyncGenerator<StreamEvent> {
  for (const event of events) yield event;
}

const start: StreamEvent = { type: "start", id: "up-1", model: "acme/a", provider: "acme", created: 1700000000 };
const usage: Usage = { input: { total: 10, cacheRead: 4, cacheWrite: 1 }, output: { total: 7, reasoning: 3 } };

describe("collect", () => {
  test("builds identity, text, usage and finish from a plain stream", async () => {
    const response = await collect(
      replay([
        { ...start, serviceTier: "flex" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hel" },
        { type: "text-delta", id: "t", delta: "lo" },
        { type: "text-end", id: "t" },
        { type: "usage", usage },
        { type: "finish", finish: { reason: "length", raw: "max_tokens" } },
      ]),
    );
    expect(response).toMatchObject({ id: "up-1", model: "acme/a", provider: "acme", created: 1700000000, serviceTier: "flex" });
    expect(response.parts).toEqual([{ type: "text", text: "Hello" }]);
    expect(response.usage).toEqual(usage);
    expect(response.finish).toEqual({ reason: "length", raw: "max_tokens" });
    expect(response.error).toBeUndefined();
  });

  test("keeps interleaved parts apart by id and in start order", async () => {
    const response = await collect(
      replay([
        start,
        { type: "reasoning-start", id: "r", itemId: "rs_1", format: "openai-responses-v1" },
        { type: "text-start", id: "t" },
        { type: "reasoning-delta", id: "r", delta: "think " },
        { type: "text-delta", id: "t", delta: "answer" },
        { type: "reasoning-delta", id: "r", delta: "more" },
        { type: "reasoning-end", id: "r", signature: "sig", encrypted: "enc" },
        { type: "text-end", id: "t" },
        { type: "tool-call-start", id: "call_1", name: "get_weather", itemId: "fc_1" },
        { type: "tool-call-start", id: "call_2", name: "get_time" },
        { type: "tool-call-delta", id: "call_1", delta: '{"city":' },
        { type: "tool-call-delta", id: "call_2", delta: "{}" },
        { type: "tool-call-delta", id: "call_1", delta: '"Paris"}' },
        { type: "tool-call-end", id: "call_1" },
        { type: "tool-call-end", id: "call_2" },
        { type: "finish", finish: { reason: "tool_calls" } },
      ]),
    );
    expect(response.parts).toEqual([
      { type: "reasoning", text: "think more", id: "rs_1", format: "openai-responses-v1", signature: "sig", encrypted: "enc" },
      { type: "text", text: "answer" },
      { type: "tool-call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', itemId: "fc_1" },
      { type: "tool-call", id: "call_2", name: "get_time", arguments: "{}" },
    ]);
    expect(response.finish.reason).toBe("tool_calls");
  });

  test("tool-call arguments are kept as the exact text produced", async () => {
    const args = '{ "a" : 1.50,\n "b": "\\u00e9" }';
    const response = await collect(
      replay([
        { type: "tool-call-start", id: "c", name: "f" },
        ...[...args].map((ch): StreamEvent => ({ type: "tool-call-delta", id: "c", delta: ch })),
        { type: "tool-call-end", id: "c" },
      ]),
    );
    expect(response.parts).toEqual([{ type: "tool-call", id: "c", name: "f", arguments: args }]);
  });

  test("a delta without a start opens the part implicitly; a delta for an unknown tool call is dropped", async () => {
    const response = await collect(
      replay([
        { type: "text-delta", id: "t", delta: "x" },
        { type: "reasoning-delta", id: "r", delta: "y" },
        { type: "tool-call-delta", id: "nope", delta: "{}" },
        { type: "refusal-delta", id: "f", delta: "I can" },
        { type: "refusal-delta", id: "f", delta: "not" },
      ]),
    );
    expect(response.parts).toEqual([
      { type: "text", text: "x" },
      { type: "reasoning", text: "y" },
      { type: "refusal", text: "I cannot" },
    ]);
  });

  test("a new start after an end with the same id makes a second part", async () => {
    const response = await collect(
      replay([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "one" },
        { type: "text-end", id: "t" },
        { type: "text-delta", id: "t", delta: "two" },
      ]),
    );
    expect(response.parts).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
  });

  test("summary deltas go to the summary, not the reasoning text; redacted data is kept", async () => {
    const response = await collect(
      replay([
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "Sum", kind: "summary" },
        { type: "reasoning-delta", id: "r", delta: "mary", kind: "summary" },
        { type: "reasoning-delta", id: "r", delta: "raw", kind: "text" },
        { type: "reasoning-end", id: "r", redacted: "opaque" },
      ]),
    );
    expect(response.parts).toEqual([{ type: "reasoning", text: "raw", summary: ["Summary"], redacted: "opaque" }]);
  });

  test("text annotations from the end event and logprobs from deltas are kept", async () => {
    const response = await collect(
      replay([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "a", logprobs: [{ token: "a", logprob: -0.1 }] },
        { type: "text-delta", id: "t", delta: "b", logprobs: [{ token: "b", logprob: -0.2 }] },
        { type: "text-end", id: "t", annotations: [{ type: "url_citation", url: "https://x" }] },
      ]),
    );
    expect(response.parts).toEqual([{ type: "text", text: "ab", annotations: [{ type: "url_citation", url: "https://x" }] }]);
    expect(response.logprobs).toEqual([
      { token: "a", logprob: -0.1 },
      { token: "b", logprob: -0.2 },
    ]);
  });

  test("server tools: start and end fold into one part per call, at the start's position, ends in any order", async () => {
    const response = await collect(
      replay([
        start,
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Let me look." },
        { type: "text-end", id: "t" },
        { type: "server-tool-start", id: "st_1", callId: "call_1", name: "service:web_search", arguments: '{"query":"bun"}' },
        { type: "server-tool-start", id: "st_2", callId: "call_2", name: "service:web_fetch", arguments: '{"url":"https://x.example"}' },
        { type: "server-tool-end", id: "st_2", status: "failed", error: "HTTP 404: Not Found" },
        { type: "server-tool-end", id: "st_1", status: "completed", result: { results: [{ url: "https://bun.sh", title: "Bun" }] } },
        { type: "text-start", id: "t2_t" },
        { type: "text-delta", id: "t2_t", delta: "Found it." },
        { type: "text-end", id: "t2_t" },
      ]),
    );
    expect(response.parts).toEqual([
      { type: "text", text: "Let me look." },
      { type: "server-tool", id: "st_1", callId: "call_1", name: "service:web_search", arguments: '{"query":"bun"}', status: "completed", result: { results: [{ url: "https://bun.sh", title: "Bun" }] } },
      { type: "server-tool", id: "st_2", callId: "call_2", name: "service:web_fetch", arguments: '{"url":"https://x.example"}', status: "failed", error: "HTTP 404: Not Found" },
      { type: "text", text: "Found it." },
    ]);
  });

  test("a server tool that never ended is incomplete; an end without a start adds nothing", async () => {
    const response = await collect(
      replay([
        { type: "server-tool-end", id: "st_x", status: "completed", result: 1 },
        { type: "server-tool-start", id: "st_1", callId: "call_1", name: "service:datetime", arguments: "{}" },
      ]),
    );
    expect(response.parts).toEqual([{ type: "server-tool", id: "st_1", callId: "call_1", name: "service:datetime", arguments: "{}", status: "incomplete" }]);
  });

  test("the last usage event wins", async () => {
    const first: Usage = { input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
    const response = await collect(replay([{ type: "usage", usage: first }, { type: "usage", usage }]));
    expect(response.usage).toEqual(usage);
  });

  test("an in-band error event becomes the response error with an error finish", async () => {
    const error = new GatewayError("provider_overloaded", "busy", { metadata: { provider: "acme" } });
    const response = await collect(
      replay([start, { type: "text-delta", id: "t", delta: "partial" }, { type: "error", error }]),
    );
    expect(response.parts).toEqual([{ type: "text", text: "partial" }]);
    expect(response.error).toEqual({ type: "provider_overloaded", message: "busy", status: 529, metadata: { provider: "acme" } });
    expect(response.finish).toEqual({ reason: "error", raw: "error" });
  });

  test("a stream that throws keeps what arrived and carries a generic error (no internals)", async () => {
    async function* broken(): AsyncGenerator<StreamEvent> {
      yield start;
      yield { type: "text-delta", id: "t", delta: "so far" };
      throw new Error("socket hang up at 10.0.0.7");
    }
    const response = await collect(broken());
    expect(response.parts).toEqual([{ type: "text", text: "so far" }]);
    expect(response.error).toEqual({ type: "server", message: "Internal server error", status: 500 });
    expect(response.finish.reason).toBe("error");
  });

  test("a thrown GatewayError keeps its type and status", async () => {
    async function* broken(): AsyncGenerator<StreamEvent> {
      yield start;
      throw new GatewayError("timeout", "upstream timed out", { status: 524 });
    }
    const response = await collect(broken());
    expect(response.error).toEqual({ type: "timeout", message: "upstream timed out", status: 524 });
  });

  test("debug events do not change the response", async () => {
    const response = await collect(replay([start, { type: "debug", upstreamBody: { model: "x" } }]));
    expect(response.parts).toEqual([]);
    expect(response.id).toBe("up-1");
  });
});

describe("ResponseBuilder.complete", () => {
  test("is false until a finish or an error arrives", () => {
    const finished = new ResponseBuilder();
    finished.add(start);
    finished.add({ type: "text-delta", id: "t", delta: "x" });
    expect(finished.complete).toBe(false);
    finished.add({ type: "finish", finish: { reason: "stop" } });
    expect(finished.complete).toBe(true);

    const failed = new ResponseBuilder();
    failed.add({ type: "error", error: new GatewayError("server", "x") });
    expect(failed.complete).toBe(true);
  });
});
