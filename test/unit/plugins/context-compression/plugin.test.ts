/**
 * plugins/context-compression: the around hook with a fake hook context — which endpoint it compresses for, the
 * adapter's message cap, what it leaves alone, and what a 200k-token history costs through the whole hook.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { Message } from "../../../../core/model/parts.ts";
import { responseOutcome } from "../../../../core/pipeline/outcome.ts";
import type { PluginContext, RouteDecision, Turn } from "../../../../core/registry/plugin.ts";
import type { CatalogView, EndpointView } from "../../../../core/routing/catalog-view.ts";
import plugin from "../../../../plugins/context-compression/index.ts";
import { canonicalRequest, response } from "../../pipeline/helpers.ts";

function endpoint(overrides: Partial<EndpointView> = {}): EndpointView {
  return { model: "acme/m", provider: "p", contextLength: 4_096, maxOutputTokens: undefined, pricing: { prompt: 0, completion: 0 }, latency: undefined, throughput: undefined, health: "closed", ...overrides };
}

function harness(messages: Message[], view: EndpointView, explicit = false) {
  const reports: Array<Record<string, unknown>> = [];
  const routed: number[] = [];
  const decision: RouteDecision = { endpoints: [view] };
  const catalog: CatalogView = { models: () => [], model: (id) => (id === view.model ? { id, endpoints: [view] } : undefined) };
  const ctx = {
    request: canonicalRequest({ model: view.model, messages }),
    options: {},
    explicit,
    state: new Map(),
    catalog,
    report: (entry: Record<string, unknown>) => void reports.push(entry),
    route: async () => (routed.push(1), decision),
    helpers: { error: (type: string, message: string, init?: { metadata?: Record<string, unknown> }) => new GatewayError(type as never, message, init) },
  } as unknown as PluginContext;
  const sent: Array<{ messages: Message[]; route: RouteDecision | undefined }> = [];
  const turn: Turn = async (request, options) => (sent.push({ messages: request.messages, route: options?.route }), responseOutcome(response()));
  return { run: () => plugin.hooks.around!(ctx, turn), sent, reports, routed, decision };
}

const say = (i: number, words = 10): Message => ({ role: i % 2 === 0 ? "user" : "assistant", parts: [{ type: "text", text: `m${i} ${"word ".repeat(words)}` }] });

describe("around", () => {
  test("routes once, compresses for that endpoint and calls the turn with that very decision", async () => {
    const h = harness(Array.from({ length: 400 }, (_, i) => say(i, 20)), endpoint());
    await h.run();
    expect(h.routed).toHaveLength(1);
    expect(h.sent[0]!.route).toBe(h.decision);
    expect(h.sent[0]!.messages.length).toBeLessThan(400);
    expect(h.reports[0]).toMatchObject({ engine: "middle-out", original_count: 400, context_length: 4_096, endpoint: "acme/m@p" });
  });

  test("a model with no small-window endpoint is not even routed by default", async () => {
    const h = harness([say(0)], endpoint({ contextLength: 32_000 }));
    await h.run();
    expect(h.routed).toEqual([]);
    expect(h.sent[0]!.route).toBeUndefined();
  });

  test("the adapter's message cap applies when the plugin is asked for, even when the tokens fit", async () => {
    const h = harness(Array.from({ length: 1_200 }, (_, i) => say(i, 1)), endpoint({ contextLength: 1_000_000, maxMessages: 1_000 }), true);
    await h.run();
    expect(h.sent[0]!.messages).toHaveLength(1_000);
    expect(h.reports[0]).toMatchObject({ original_count: 1_200, compressed_count: 1_000 });
  });

  test("image-only models and endpoints without a known window are left alone", async () => {
    const long = Array.from({ length: 400 }, (_, i) => say(i, 20));
    const images = harness(long, endpoint({ outputModalities: ["image"] }), true);
    await images.run();
    expect(images.sent[0]!.messages).toHaveLength(400);
    const unknown = harness(long, endpoint({ contextLength: undefined }), true);
    await unknown.run();
    expect(unknown.sent[0]!.messages).toHaveLength(400);
  });

  test("a 200k-token history through the whole hook (byte bound, exact count, middle-out) fits the window", async () => {
    const long = Array.from({ length: 2_000 }, (_, i) => say(i, 100));
    await harness(long, endpoint({ contextLength: 8_192 })).run(); // loads the tokenizer once
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const h = harness(long, endpoint({ contextLength: 8_192 }));
      const started = performance.now();
      await h.run();
      times.push(performance.now() - started);
      expect(h.reports[0]!.prompt_tokens as number).toBeLessThanOrEqual(8_192);
    }
    times.sort((a, b) => a - b);
    // A figure to read, not a bound (timing belongs to bench/): a few milliseconds on an idle machine.
    console.log(`context-compression hook, 2,000 messages (~210k tokens) → 8,192: median ${times[2]!.toFixed(2)} ms`);
  });
});
