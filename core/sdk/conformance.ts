/**
 * The provider adapter conformance kit (`inference-gateway/sdk/conformance`): registers `bun:test` tests that any
 * adapter — built in or from another package — must pass to work behind every inbound format: a text answer, a
 * well-formed event stream (start first, each delta inside its part's start and end, one finish, an error only last),
 * stream ≡ collect(stream) for a deterministic upstream, a forced tool call with JSON arguments, an abort that ends
 * the call, and upstream failures as GatewayErrors with a status. Given what a scripted upstream answers, it also
 * checks that the adapter reports exactly that text and those token counts, and that reasoning arrives as a
 * reasoning part streamed before the answer. Call it at the top level of a test file:
 *
 *     adapterConformance({ adapter, target, failure: { target: brokenTarget } });
 */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { GatewayError, isGatewayError } from "../errors.ts";
import { createModuleHelpers } from "../registry/module-helpers.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { collect } from "../model/collect.ts";
import type { StreamEvent } from "../model/events.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { Usage } from "../model/usage.ts";
import type { ModuleHelpers } from "../registry/helpers.ts";
import type { ProviderAdapter, ProviderCall, UpstreamTarget } from "../registry/provider.ts";
import { addWarning } from "../model/warnings.ts";

export interface ConformanceOptions {
  adapter: ProviderAdapter;
  /** Where the adapter's calls go (its upstream, or a local fake of it). */
  target: UpstreamTarget;
  /** The user prompt of the text checks. */
  prompt?: string;
  /** The same request always gets the same answer (then the streamed and whole answers must match exactly). */
  deterministic?: boolean;
  /** Check a forced function tool call (default true). */
  tools?: boolean;
  /** A call that must fail upstream: another target (e.g. a dead port) and/or a prompt that makes it fail. */
  failure?: { target?: UpstreamTarget; prompt?: string };
  /** The helpers the adapter gets (default: global fetch, a silent logger, a memory kv). */
  helpers?: ModuleHelpers;
  /** Per-call time budget in ms (default 10 000). */
  timeoutMs?: number;
  /**
   * What the upstream answers the text prompt with, when the test knows it (a scripted fake): the adapter must report
   * exactly this text and these token counts (canonical: input including cache reads and writes, output including
   * reasoning), from `generate` and from the collected stream alike.
   */
  expected?: { text?: string; usage?: Partial<UsageCounts> };
  /**
   * A prompt the upstream answers with reasoning first: the adapter must give a reasoning part that carries something
   * (text, a summary, or the opaque state to send back), streamed start → deltas → end before any text or tool call.
   */
  reasoning?: { prompt: string };
}

/** Token counts of a canonical `Usage`, flat. */
export interface UsageCounts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
}

const FINISH_REASONS = new Set(["stop", "length", "tool_calls", "content_filter", "refusal", "pause", "context_window", "error", "other"]);

/** A minimal canonical request of one user message. */
export function conformanceRequest(prompt: string, overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    format: "chat",
    model: "conformance/model",
    models: [],
    system: [],
    messages: [{ role: "user", parts: [{ type: "text", text: prompt }] }],
    tools: [],
    sampling: {},
    stream: false,
    plugins: [],
    warnings: [],
    original: {},
    ...overrides,
  };
}

function defaultHelpers(): ModuleHelpers {
  const clock = { now: () => Date.now() };
  return createModuleHelpers({ logger: pino({ level: "silent" }), fetch, kv: createMemoryKv(clock), clock, ids: { id: (prefix) => `${prefix}${crypto.randomUUID()}` } });
}

/** Registers the conformance tests of one adapter. */
export function adapterConformance(options: ConformanceOptions): void {
  const { adapter, target } = options;
  const prompt = options.prompt ?? "Say hello in one short sentence.";
  const helpers = options.helpers ?? defaultHelpers();
  const timeout = options.timeoutMs ?? 10_000;
  const call = (request: CanonicalRequest, overrides: Partial<ProviderCall> = {}): ProviderCall => ({
    request,
    target,
    signal: AbortSignal.timeout(timeout),
    helpers,
    // As the gateway does: the reported warnings are the call's request's (the response carries none of its own).
    warn: (warning) => addWarning(request.warnings, warning),
    ...overrides,
  });

  describe(`adapter conformance: ${adapter.id}`, () => {
    test("generate: a text answer with a unified finish reason and whole, non-negative usage", async () => {
      const response = await adapter.generate(call(conformanceRequest(prompt)));
      expectWellFormedResponse(response);
      expect(textOf(response).length).toBeGreaterThan(0);
    });

    test("stream: start first, each delta inside its part's start and end, one finish, an error only last", async () => {
      const events = await drain(await adapter.stream(call(conformanceRequest(prompt, { stream: true }))));
      expectWellFormedStream(events);
      expect(events.some((e) => e.type === "text-delta")).toBe(true);
    });

    test(options.deterministic ? "stream ≡ collect(stream) ≡ generate" : "collect(stream) is a well-formed response", async () => {
      const collected = await collect(await adapter.stream(call(conformanceRequest(prompt, { stream: true }))));
      expectWellFormedResponse(collected);
      if (!options.deterministic) return;
      const whole = await adapter.generate(call(conformanceRequest(prompt)));
      expect(textOf(collected)).toBe(textOf(whole));
      expect(collected.finish.reason).toBe(whole.finish.reason);
      expect(collected.usage.input.total).toBe(whole.usage.input.total);
      expect(collected.usage.output.total).toBe(whole.usage.output.total);
    });

    if (options.tools !== false) {
      test("a forced function tool is called with JSON arguments", async () => {
        const request = conformanceRequest("What is the weather in Paris?", {
          tools: [
            {
              kind: "function",
              name: "get_weather",
              description: "Current weather for a city",
              parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
          ],
          toolChoice: { type: "tool", name: "get_weather" },
        });
        const response = await adapter.generate(call(request));
        const calls = response.parts.filter((p) => p.type === "tool-call");
        expect(calls.length).toBeGreaterThan(0);
        for (const part of calls) {
          expect(part.name).toBe("get_weather");
          expect(part.id.length).toBeGreaterThan(0);
          expect(() => JSON.parse(part.arguments)).not.toThrow();
        }
        expect(response.finish.reason).toBe("tool_calls");
      });
    }

    const expected = options.expected;
    if (expected) {
      test("the upstream's answer: its text and token counts, from generate and from the stream", async () => {
        const whole = await adapter.generate(call(conformanceRequest(prompt)));
        const collected = await collect(await adapter.stream(call(conformanceRequest(prompt, { stream: true }))));
        for (const response of [whole, collected]) {
          if (expected.text !== undefined) expect(textOf(response)).toBe(expected.text);
          if (expected.usage) expect(countsOf(response.usage)).toMatchObject(expected.usage);
        }
      });
    }

    const reasoning = options.reasoning;
    if (reasoning) {
      test("reasoning: a reasoning part, streamed start → deltas → end before any text or tool call", async () => {
        const whole = await adapter.generate(call(conformanceRequest(reasoning.prompt)));
        const thoughts = whole.parts.filter((p) => p.type === "reasoning");
        expect(thoughts.length).toBeGreaterThan(0);
        for (const part of thoughts) expect(part.text !== "" || (part.summary?.length ?? 0) > 0 || [part.signature, part.encrypted, part.redacted].some(Boolean)).toBe(true);
        const events = await drain(await adapter.stream(call(conformanceRequest(reasoning.prompt, { stream: true }))));
        expectWellFormedStream(events);
        const firstThought = events.findIndex((e) => e.type === "reasoning-start");
        const firstAnswer = events.findIndex((e) => e.type === "text-start" || e.type === "tool-call-start");
        expect(firstThought).toBeGreaterThan(0);
        if (firstAnswer !== -1) expect(firstThought).toBeLessThan(firstAnswer);
        if (options.deterministic) {
          const streamed = await collect(replay(events));
          expect(reasoningOf(streamed)).toBe(reasoningOf(whole));
        }
      });
    }

    test("an abort ends the call (no hang): the stream stops or throws soon after", async () => {
      const controller = new AbortController();
      const started = Date.now();
      const run = (async () => {
        const events = await adapter.stream(call(conformanceRequest(prompt, { stream: true }), { signal: controller.signal }));
        for await (const _ of events) controller.abort(new GatewayError("timeout", "aborted by the conformance kit", { status: 408 }));
      })();
      controller.abort(new GatewayError("timeout", "aborted by the conformance kit", { status: 408 }));
      await run.catch(() => undefined);
      expect(Date.now() - started).toBeLessThan(timeout);
    });

    if (options.failure) {
      const failure = options.failure;
      test("an upstream failure is a GatewayError with an HTTP status, from generate and from stream", async () => {
        const failing = conformanceRequest(failure.prompt ?? prompt);
        const failingCall = (stream: boolean) => call({ ...failing, stream }, failure.target ? { target: failure.target } : {});
        for (const thrown of [await adapter.generate(failingCall(false)).catch((e: unknown) => e), await failedStream(adapter, failingCall(true))]) {
          expect(isGatewayError(thrown)).toBe(true);
          const error = thrown as GatewayError;
          expect(error.status).toBeGreaterThanOrEqual(400);
          expect(typeof error.retryable).toBe("boolean");
        }
      });
    }
  });
}

/** A stream call's failure: thrown before the stream (status known) or its in-band `error` event. */
async function failedStream(adapter: ProviderAdapter, call: ProviderCall): Promise<unknown> {
  try {
    for (const event of await drain(await adapter.stream(call))) if (event.type === "error") return event.error;
  } catch (thrown) {
    return thrown;
  }
  return new Error("the stream did not fail");
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function* replay(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  yield* events;
}

function countsOf(usage: Usage): UsageCounts {
  return { input: usage.input.total, cacheRead: usage.input.cacheRead, cacheWrite: usage.input.cacheWrite, output: usage.output.total, reasoning: usage.output.reasoning };
}

function reasoningOf(response: CanonicalResponse): string {
  return response.parts.map((p) => (p.type === "reasoning" ? p.text : "")).join("");
}

function textOf(response: CanonicalResponse): string {
  return response.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function expectWellFormedResponse(response: CanonicalResponse): void {
  expect(Array.isArray(response.parts)).toBe(true);
  expect(Array.isArray(response.warnings)).toBe(true);
  expect(FINISH_REASONS.has(response.finish.reason)).toBe(true);
  for (const count of [response.usage.input.total, response.usage.output.total, response.usage.input.cacheRead, response.usage.output.reasoning]) {
    expect(Number.isInteger(count) && count >= 0).toBe(true);
  }
}

function expectWellFormedStream(events: StreamEvent[]): void {
  expect(events[0]?.type).toBe("start");
  const errorAt = events.findIndex((e) => e.type === "error");
  if (errorAt !== -1) expect(errorAt).toBe(events.length - 1);
  // Exactly one finish; a stream that failed in-band may have finished before its error, never twice.
  const finishes = events.filter((e) => e.type === "finish").length;
  expect(errorAt === -1 ? finishes === 1 : finishes <= 1).toBe(true);
  const started = new Set<string>();
  const ended = new Set<string>();
  for (const event of events) {
    if (event.type === "text-start" || event.type === "reasoning-start" || event.type === "tool-call-start") started.add(event.id);
    if (event.type === "text-end" || event.type === "reasoning-end" || event.type === "tool-call-end") ended.add(event.id);
    if (event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta") {
      expect(started.has(event.id)).toBe(true);
      expect(ended.has(event.id)).toBe(false);
    }
  }
}
