/** Hand-built request contexts and fakes for stage tests (no HTTP, no database, no network). */
import type { Logger } from "pino";
import type { UsageLedger } from "../../../core/accounting/ledger.ts";
import type { Principal } from "../../../core/auth/principal.ts";
import type { GatewayConfig, ModelConfig, Pricing, ProviderConfig } from "../../../core/config/types.ts";
import type { Deps } from "../../../core/deps.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { WireFormat } from "../../../core/formats/format.ts";
import type { EventStream, StreamEvent } from "../../../core/model/events.ts";
import type { CanonicalRequest } from "../../../core/model/request.ts";
import type { CanonicalResponse } from "../../../core/model/response.ts";
import { emptyUsage, type Usage } from "../../../core/model/usage.ts";
import type { RequestContext } from "../../../core/pipeline/context.ts";
import { responseOutcome, type Outcome } from "../../../core/pipeline/outcome.ts";
import { freshState } from "../../../core/pipeline/new-context.ts";
import { defineProvider, type RegisteredProvider } from "../../../core/registry/define.ts";
import type { ModuleHelpers } from "../../../core/registry/helpers.ts";
import type { ProviderCall } from "../../../core/registry/provider.ts";
import { Registry } from "../../../core/registry/registry.ts";
import { Catalog, type Endpoint } from "../../../core/routing/catalog.ts";
import { createRoutingRuntime } from "../../../core/routing/runtime.ts";
import { CreditLedger, type CreditHold } from "../../../core/limits/credits.ts";
import { billTerms } from "../../../core/limits/turn-size.ts";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { limitsOf, routingOf } from "../../../core/config/routing-limits.ts";
import type { GenerationRecord } from "../../../core/store/types.ts";
import { drain, replay } from "../../support/iterables.ts";
import { keyRecord } from "../auth/fakes.ts";
import { conformanceRequest } from "../../../core/sdk/conformance.ts";

export function canonicalRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return conformanceRequest("hi", { model: "acme/a", ...overrides });
}

export function modelConfig(id: string, pricing: Pricing = { prompt: 0.000001, completion: 0.000002 }): ModelConfig {
  return {
    id,
    upstreamModel: `up-${id}`,
    pricing,
    contextLength: undefined,
    maxOutputTokens: undefined,
    supportedParameters: undefined,
    quantization: undefined,
    tiers: undefined,
    dataCollection: undefined,
    zdr: undefined,
    name: undefined,
    description: undefined,
  };
}

export function providerConfig(id: string, models: ModelConfig[], adapter = "fake"): ProviderConfig {
  return { id, adapter, baseUrl: `https://${id}.example/v1`, apiKey: "k", headers: {}, options: {}, models, simulated: false };
}

/** A provider adapter whose behaviour the test scripts; records every call. */
export function fakeAdapter(
  behaviour: {
    generate?: (call: ProviderCall) => Promise<CanonicalResponse>;
    stream?: (call: ProviderCall) => Promise<EventStream>;
  } = {},
  id = "fake",
): RegisteredProvider & { calls: ProviderCall[] } {
  const calls: ProviderCall[] = [];
  const adapter = defineProvider({
    id,
    description: "scripted test adapter",
    generate: (call: ProviderCall) => {
      calls.push(call);
      return behaviour.generate ? behaviour.generate(call) : Promise.resolve(response());
    },
    stream: (call: ProviderCall) => {
      calls.push(call);
      return behaviour.stream ? behaviour.stream(call) : Promise.resolve(replay([]));
    },
  });
  return { ...adapter, calls };
}

export function endpointOf(model: ModelConfig, provider: ProviderConfig, adapter: RegisteredProvider = fakeAdapter()): Endpoint {
  return {
    model,
    provider,
    adapter,
    target: {
      providerId: provider.id,
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      upstreamModel: model.upstreamModel,
      headers: provider.headers,
      options: provider.options,
    },
  };
}

export function response(overrides: Partial<CanonicalResponse> = {}): CanonicalResponse {
  return {
    id: "upstream-id",
    model: "acme/a",
    provider: "acme",
    created: 1,
    parts: [{ type: "text", text: "ok" }],
    finish: { reason: "stop" },
    usage: emptyUsage(),
    warnings: [],
    ...overrides,
  };
}

export function usageOf(input: number, output: number, extra: Partial<{ cacheRead: number; cacheWrite: number; reasoning: number }> = {}): Usage {
  return {
    input: { total: input, cacheRead: extra.cacheRead ?? 0, cacheWrite: extra.cacheWrite ?? 0 },
    output: { total: output, reasoning: extra.reasoning ?? 0 },
  };
}

export { drain, replay };

export interface LogCall {
  level: "info" | "error" | "warn" | "debug";
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** A logger that records calls instead of writing. */
export function recordingLogger(): Logger & { calls: LogCall[] } {
  const calls: LogCall[] = [];
  const at = (level: LogCall["level"]) => (obj: Record<string, unknown>, msg?: string) => void calls.push({ level, obj, msg });
  const logger = { calls, info: at("info"), error: at("error"), warn: at("warn"), debug: at("debug"), child: () => logger };
  return logger as unknown as Logger & { calls: LogCall[] };
}

/** A ledger that only records what it was given. */
export function recordingLedger(): UsageLedger & { records: GenerationRecord[] } {
  const records: GenerationRecord[] = [];
  return { records, record: (g: GenerationRecord) => void records.push(g), pendingUsage: () => 0, pendingUsageSince: () => 0, readConsistently: <T>(read: () => Promise<T>) => read() } as unknown as UsageLedger & {
    records: GenerationRecord[];
  };
}

/** A tiny wire format: JSON is `{encoded: id, text}`, frames are `data: <event type>\n\n` then `data: [DONE]\n\n`. */
export const fakeFormat: WireFormat = {
  id: "chat",
  schema: {} as WireFormat["schema"],
  decode: () => canonicalRequest(),
  encode: (res, ctx) => ({
    encoded: ctx.generationId,
    text: res.parts.map((p) => (p.type === "text" ? p.text : "")).join(""),
    cost: res.cost ?? null,
    ...(ctx.trailer?.serviceMetadata ? { service_metadata: ctx.trailer.serviceMetadata } : {}),
  }),
  async *stream(events) {
    for await (const event of events) yield `data: ${event.type}\n\n`;
    yield "data: [DONE]\n\n";
  },
};

export function fakeHelpers(): ModuleHelpers {
  return {
    error: (type, message, init) => new GatewayError(type, message, init),
    logger: recordingLogger(),
    fetch: (() => Promise.reject(new Error("no network in unit tests"))) as unknown as typeof fetch,
    kv: {} as ModuleHelpers["kv"],
    documents: {} as ModuleHelpers["documents"],
    now: () => 1000,
    id: (prefix) => `${prefix}1`,
  };
}

export function testConfig(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    databaseUrl: "sqlite://:memory:",
    redisUrl: undefined,
    logLevel: "silent",
    adminKey: undefined,
    bodyLimitBytes: 1024 * 1024,
    idleTimeoutSeconds: 60,
    keepAliveMs: 15_000,
    shutdownGraceMs: 0,
    idleTrimMs: 0,
    providers: [],
    extensions: [],
    plugins: {},
    tools: {},
    agentLoop: { toolConcurrency: 8, toolTimeoutMs: 30_000 },
    network: { allowPrivate: [] },
    configDir: "/",
    ...overrides,
  };
}

/** A settable clock. */
export function manualClock(start = 1_000_000): { now(): number; set(ms: number): void; advance(ms: number): void } {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms), advance: (ms) => void (now += ms) };
}

export interface TestDeps extends Deps {
  logger: Logger & { calls: LogCall[] };
  ledger: UsageLedger & { records: GenerationRecord[] };
  clock: ReturnType<typeof manualClock>;
}

export function testDeps(overrides: Partial<Deps> = {}): TestDeps {
  const base = {
    config: testConfig(),
    clock: manualClock(),
    ids: { id: (prefix: string) => `${prefix}test` },
    fetch: fakeHelpers().fetch,
    serverFetch: fakeHelpers().fetch,
    // No guardrail applies to anyone in these tests (the guardrails stage reads this on every request).
    store: { guardrails: { applying: async () => [] }, admissions: { admitted: async () => false }, workspaces: { get: async () => undefined, budgets: async () => [] }, byok: { all: async () => [] } } as unknown as Deps["store"],
    logger: recordingLogger(),
    registry: new Registry(),
    catalog: new Catalog(),
    ledger: recordingLedger(),
    keyCache: {} as Deps["keyCache"],
    helpers: fakeHelpers(),
    guardedHelpers: fakeHelpers(),
    streamHelpers: fakeHelpers(),
    ...overrides,
  };
  const kv = overrides.kv ?? createMemoryKv(base.clock);
  const routing =
    overrides.routing ??
    createRoutingRuntime({ kv, clock: base.clock, logger: base.logger, catalog: base.catalog, settings: routingOf(base.config), random: () => 0.5 });
  const credits = overrides.credits ?? new CreditLedger(kv, base.store, base.ledger, base.clock, base.logger, limitsOf(base.config));
  return { ...base, kv, routing, credits } as TestDeps;
}

export const inferencePrincipal: Principal = {
  keyHash: "a".repeat(64),
  name: "inference",
  workspaceId: "ws-1",
  isManagement: false,
  isOperator: false,
  record: keyRecord("a".repeat(64), { name: "inference" }),
};

export const managementPrincipal: Principal = { ...inferencePrincipal, keyHash: "b".repeat(64), isManagement: true, name: "admin" };

export type TestContext = RequestContext & { deps: TestDeps };

export function testContext(overrides: Partial<Omit<RequestContext, "deps">> & { deps?: TestDeps } = {}): TestContext {
  const deps = overrides.deps ?? testDeps();
  return {
    format: fakeFormat,
    headers: new Headers(),
    signal: new AbortController().signal,
    startedAt: deps.clock.now(),
    generationId: "gen-test",
    principal: inferencePrincipal,
    request: canonicalRequest(),
    metadataOptIn: false,
    ...freshState(),
    ...overrides,
    deps,
  };
}

/** Puts `hold` on the context's bill, as the limits stage does for a key with a credit limit (sized for its model). */
export function openBill(ctx: RequestContext, hold: CreditHold): void {
  ctx.bill.open(billTerms(ctx.deps, ctx.principal?.record ?? inferencePrincipal.record!, ctx.request), [hold]);
}

/**
 * A `next` that records it ran and resolves with the outcome `effect` returns (a plain response outcome when it
 * returns nothing).
 */
export function stubNext(effect?: () => Outcome | void | Promise<Outcome | void>): (() => Promise<Outcome>) & { calls: number } {
  const next = Object.assign(
    async (): Promise<Outcome> => {
      next.calls++;
      return (await effect?.()) ?? responseOutcome(response());
    },
    { calls: 0 },
  );
  return next;
}

export type { StreamEvent };
