import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import { moduleBrand } from "../../../../core/registry/define.ts";
import type { ProviderCall } from "../../../../core/registry/provider.ts";
import openai from "../../../../providers/openai/index.ts";
import { startSimulatorServer, type SimulatorServer } from "../../../../providers/simulator/server.ts";
import { canonicalRequest, drain, providerCall, target, until } from "../helpers.ts";

let sim: SimulatorServer;

beforeAll(() => {
  sim = startSimulatorServer({ record: true });
});
afterAll(() => sim.stop());

function callFor(request: CanonicalRequest, extra: Partial<ProviderCall> = {}): ProviderCall {
  return providerCall({ request, target: target({ baseUrl: sim.url, upstreamModel: "sim-model", headers: { "x-org": "acme" } }), ...extra });
}

const ask = (text: string, overrides: Partial<CanonicalRequest> = {}) =>
  canonicalRequest({ messages: [{ role: "user", parts: [{ type: "text", text }] }], ...overrides });

describe("openai adapter against the simulator server (loopback)", () => {
  test("is a branded provider module", () => {
    expect(moduleBrand(openai)).toEqual({ kind: "provider", apiVersion: 1 });
    expect(openai.id).toBe("openai");
  });

  test("generate: text, usage and identity; sends bearer auth and target headers; echoes the exact body", async () => {
    let echoed: unknown;
    const before = sim.requests.length;
    const response = await openai.generate(callFor(ask("Hello simulator [sim tokens=6]"), { onUpstreamBody: (b) => (echoed = b) }));
    expect(response.parts).toEqual([{ type: "text", text: expect.stringMatching(/^Simulated reply: \w+ \w+ \w+ \w+$/) }]);
    expect(response.finish).toEqual({ reason: "stop", raw: "stop" });
    // "Hello simulator [sim tokens=6]" = 4 words, + 4 for the message.
    expect(response.usage.input.total).toBe(8);
    expect(response.usage.output).toEqual({ total: 6, reasoning: 0 });
    expect([response.model, response.provider]).toEqual(["sim-model", "test-provider"]);
    const recorded = sim.requests[before];
    expect(recorded?.path).toBe("/v1/chat/completions");
    expect(recorded?.headers.authorization).toBe("Bearer sk-test");
    expect(recorded?.headers["x-org"]).toBe("acme");
    expect(recorded?.body).toEqual(echoed);
  });

  test("stream ≡ collect(stream) ≡ generate for text with reasoning", async () => {
    const request = () => ask("Tell me a story [sim tokens=9 chunk=2 reasoning=3]");
    const events = await drain(await openai.stream(callFor(request())));
    expect(events[0]?.type).toBe("start");
    expect(events.filter((e) => e.type === "text-delta").length).toBe(5);
    const streamed = await collect((async function* () { yield* events; })());
    const generated = await openai.generate(callFor(request()));
    expect(streamed.parts).toEqual(generated.parts);
    expect(streamed.finish).toEqual(generated.finish);
    expect(streamed.usage.input).toEqual(generated.usage.input);
    expect(streamed.usage.output).toEqual({ total: 12, reasoning: 3 });
    expect(generated.usage.output).toEqual({ total: 12, reasoning: 3 });
    const body = sim.requests.at(-2)?.body as Record<string, unknown>;
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  test("stream ≡ generate for a tool call, and a tool result round trip", async () => {
    const tools: CanonicalRequest["tools"] = [
      { kind: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" }, n: { type: "integer" } }, required: ["q", "n"] } },
    ];
    const first = await collect(await openai.stream(callFor(ask("find it", { tools }))));
    const generated = await openai.generate(callFor(ask("find it", { tools })));
    expect(first.parts).toEqual(generated.parts);
    expect(first.parts).toEqual([{ type: "tool-call", id: expect.stringMatching(/^call_sim_/), name: "lookup", arguments: '{"q":"simulated","n":1}' }]);
    expect(first.finish.reason).toBe("tool_calls");
    const call = first.parts[0];
    if (call?.type !== "tool-call") throw new Error("expected a tool call");
    const followUp = await openai.generate(
      callFor(
        canonicalRequest({
          tools,
          messages: [
            { role: "user", parts: [{ type: "text", text: "find it" }] },
            { role: "assistant", parts: [call] },
            { role: "tool", parts: [{ type: "tool-result", callId: call.id, content: "found 3 items" }] },
          ],
        }),
      ),
    );
    expect(followUp.parts).toEqual([{ type: "text", text: "Tool result: found 3 items" }]);
  });

  test("max tokens cut the reply: finish length", async () => {
    const response = await openai.generate(callFor(ask("long please [sim tokens=50]", { maxTokens: 5 })));
    expect(response.finish.reason).toBe("length");
    expect(response.usage.output.total).toBe(5);
  });

  for (const [status, type] of [[429, "rate_limit_exceeded"], [503, "provider_unavailable"], [401, "provider_unavailable"], [400, "invalid_request"]] as const) {
    test(`a ${status} before streaming throws ${type} from stream() (so routing can fall back)`, async () => {
      const error = await openai.stream(callFor(ask(`fail [sim status=${status}]`))).catch((e: unknown) => e);
      expect(isGatewayError(error) && error.type).toBe(type);
    });
  }

  test("a cut stream ends with an in-band error; a cut JSON body is a 502", async () => {
    const events = await drain(await openai.stream(callFor(ask("cut me [sim cut=2 tokens=10]"))));
    const last = events.at(-1);
    expect(last?.type === "error" && last.error.message).toBe("upstream stream ended unexpectedly");
    const error = await openai.generate(callFor(ask("cut me [sim cut=2]"))).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.status]).toEqual(["provider_unavailable", 502]);
  });

  test("connection refused → provider_unavailable", async () => {
    const error = await openai.generate(providerCall({ target: target({ baseUrl: "http://127.0.0.1:1/v1" }) })).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.retryable]).toEqual(["provider_unavailable", true]);
  });

  test("aborting the signal mid-stream stops the server-side stream", async () => {
    const controller = new AbortController();
    const cancelledBefore = sim.stats.cancelled;
    const events = await openai.stream(callFor(ask("slow [sim tokens=200 delay=20]"), { signal: controller.signal }));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of events) {
        seen.push(event.type);
        if (seen.filter((t) => t === "text-delta").length === 2) controller.abort(new Error("client gone"));
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("client gone");
    await until(() => sim.stats.cancelled > cancelledBefore);
  });

  test("a consumer that stops iterating cancels the upstream stream", async () => {
    const cancelledBefore = sim.stats.cancelled;
    const events = await openai.stream(callFor(ask("slow [sim tokens=200 delay=20]")));
    for await (const event of events) if (event.type === "text-delta") break;
    await until(() => sim.stats.cancelled > cancelledBefore);
  });

  test("a JSON reply to a streaming request is replayed as events", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Response.json({ id: "j1", created: 5, model: "m", choices: [{ index: 0, message: { content: "whole" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
    });
    try {
      const call = providerCall({ target: target({ baseUrl: `http://127.0.0.1:${server.port}/v1` }) });
      const response = await collect(await openai.stream(call));
      expect(response.parts).toEqual([{ type: "text", text: "whole" }]);
      expect(response.finish).toEqual({ reason: "stop", raw: "stop" });
    } finally {
      await server.stop(true);
    }
  });
});
