import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { isGatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import { moduleBrand } from "../../../../core/registry/define.ts";
import type { ProviderCall } from "../../../../core/registry/provider.ts";
import openai from "../../../../providers/openai/index.ts";
import simulator from "../../../../providers/simulator/index.ts";
import { startSimulatorServer, type SimulatorServer } from "../../../../providers/simulator/server.ts";
import { canonicalRequest, drain, providerCall, target } from "../helpers.ts";

const ask = (text: string, overrides: Partial<CanonicalRequest> = {}) =>
  canonicalRequest({ messages: [{ role: "user", parts: [{ type: "text", text }] }], ...overrides });
const callFor = (request: CanonicalRequest, extra: Partial<ProviderCall> = {}) =>
  providerCall({ request, target: target({ providerId: "sim", upstreamModel: "sim-1", options: {} }), ...extra });

describe("simulator adapter (in-process)", () => {
  test("is a branded provider module with a TypeBox options schema", () => {
    expect(moduleBrand(simulator)).toEqual({ kind: "provider", apiVersion: 1 });
    expect(simulator.optionsSchema && Value.Check(simulator.optionsSchema, { output_tokens: 4, latency_ms: 10 })).toBe(true);
    expect(simulator.optionsSchema && Value.Check(simulator.optionsSchema, { output_tokens: -1 })).toBe(false);
    expect(simulator.optionsSchema && Value.Check(simulator.optionsSchema, { bogus: 1 })).toBe(false);
  });

  test("generate: deterministic reply and exact usage", async () => {
    const a = await simulator.generate(callFor(ask("one two three")));
    const b = await simulator.generate(callFor(ask("one two three")));
    expect(a).toEqual(b);
    expect(a.usage.input.total).toBe(3 + 4);
    expect(a.usage.output).toEqual({ total: 16, reasoning: 0 });
    expect(a.finish).toEqual({ reason: "stop", raw: "stop" });
    expect([a.model, a.provider]).toEqual(["sim-1", "sim"]);
  });

  test("options from the target apply", async () => {
    const response = await simulator.generate(providerCall({ request: ask("x"), target: target({ options: { output_tokens: 3 } }) }));
    expect(response.parts).toEqual([{ type: "text", text: expect.stringMatching(/^Simulated reply: \w+$/) }]);
  });

  test("stream ≡ collect(stream) ≡ generate, with reasoning and chunking", async () => {
    const request = () => ask("story [sim reasoning=2 tokens=5 chunk=2]");
    const events = await drain(await simulator.stream(callFor(request())));
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "usage", // the prompt's tokens, known before the first one
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-end",
      "usage",
      "finish",
    ]);
    const collected = await collect((async function* () { yield* events; })());
    expect(collected).toEqual(await simulator.generate(callFor(request())));
  });

  test("tool call from the schema", async () => {
    const response = await simulator.generate(callFor(ask("go", { tools: [{ kind: "function", name: "f", parameters: { type: "object", properties: { x: { type: "boolean" } } } }] })));
    expect(response.parts).toEqual([{ type: "tool-call", id: expect.stringMatching(/^call_sim_/), name: "f", arguments: '{"x":true}' }]);
    expect(response.finish.reason).toBe("tool_calls");
  });

  test("failures throw the mapped GatewayError (same mapping as HTTP upstreams)", async () => {
    const error = await simulator.stream(callFor(ask("[sim status=429]"))).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.type, error.status, error.retryable]).toEqual(["rate_limit_exceeded", 429, true]);
    const fromOptions = await simulator.generate(providerCall({ request: ask("x"), target: target({ options: { fail_status: 503, fail_message: "down" } }) })).catch((e: unknown) => e);
    expect(isGatewayError(fromOptions) && [fromOptions.type, fromOptions.message]).toEqual(["provider_unavailable", "down"]);
  });

  test("cut: the stream ends with an in-band error; generate throws it", async () => {
    const events = await drain(await simulator.stream(callFor(ask("[sim cut=2 tokens=8]"))));
    expect(events.map((e) => e.type)).toEqual(["start", "usage", "text-start", "text-delta", "text-delta", "error"]);
    const error = await simulator.generate(callFor(ask("[sim cut=2]"))).catch((e: unknown) => e);
    expect(isGatewayError(error) && error.type).toBe("provider_unavailable");
  });

  test("honours the signal during latency and between chunks", async () => {
    const early = new AbortController();
    const reason = new Error("bye");
    setTimeout(() => early.abort(reason), 10);
    expect(await simulator.stream(callFor(ask("[sim latency=5000]"), { signal: early.signal })).catch((e: unknown) => e)).toBe(reason);

    const mid = new AbortController();
    const started = Date.now();
    const events = await simulator.stream(callFor(ask("[sim tokens=1000 delay=10]"), { signal: mid.signal }));
    let deltas = 0;
    const error = await (async () => {
      for await (const event of events) if (event.type === "text-delta" && ++deltas === 3) mid.abort(reason);
    })().catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(deltas).toBe(3);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("onUpstreamBody receives what the engine was given", async () => {
    let seen: unknown;
    await simulator.generate(callFor(ask("hi"), { onUpstreamBody: (b) => (seen = b) }));
    expect(seen).toEqual({ messages: [{ role: "user", texts: ["hi"] }], tools: [] });
  });
});

describe("in-process simulator ≡ HTTP simulator behind the openai adapter", () => {
  let sim: SimulatorServer;
  beforeAll(() => {
    sim = startSimulatorServer();
  });
  afterAll(() => sim.stop());

  test("same parts, finish and token counts for a multi-turn request with tools", async () => {
    const request = () =>
      canonicalRequest({
        system: [{ type: "text", text: "Be helpful." }, { type: "text", text: "Be brief." }],
        tools: [{ kind: "function", name: "search", parameters: { type: "object", properties: { q: { type: "string" } } } }],
        messages: [
          { role: "user", parts: [{ type: "text", text: "find cats" }, { type: "image", url: "https://e.com/c.png" }] },
          { role: "assistant", parts: [{ type: "reasoning", text: "use search" }, { type: "tool-call", id: "c1", name: "search", arguments: '{"q": "cats"}' }] },
          { role: "user", parts: [{ type: "tool-result", callId: "c1", content: "3 cats found" }] },
        ],
      });
    const inProcess = await simulator.generate(callFor(request()));
    const overHttp = await openai.generate(providerCall({ request: request(), target: target({ baseUrl: sim.url, upstreamModel: "sim-1", providerId: "sim" }) }));
    expect(overHttp.parts).toEqual(inProcess.parts);
    expect(overHttp.finish).toEqual(inProcess.finish);
    expect(overHttp.usage.input).toEqual(inProcess.usage.input);
    expect(overHttp.usage.output).toEqual(inProcess.usage.output);
    expect(inProcess.parts).toEqual([{ type: "text", text: "Tool result: 3 cats found" }]);
    // system 4+4, user 2+4, assistant (use search + search + {"q": "cats"}) 5+4, tool 3+4
    expect(inProcess.usage.input.total).toBe(30);
  });
});
