/**
 * Model discovery (README "OpenAI-compatible providers: local model servers"): a provider whose adapter can list the
 * server's models (`discoverModels`) serves them as `<provider id>/<served name>`, priced zero, with the context length
 * the server reports, exactly like configured models once in the catalog. Asked at start-up and every
 * `discovery_interval_seconds` (default 300) off the request path; a server that is down keeps what it served before
 * (nothing at first) and is asked again sooner, so its models appear within seconds of it coming up.
 */
import type { Logger } from "pino";
import type { ModelConfig } from "../config/types.ts";
import type { DiscoveredModel } from "../registry/provider.ts";
import type { ModuleHelpers } from "../registry/helpers.ts";
import { endpointOf, type Catalog, type ResolvedProvider } from "./catalog.ts";
import { profileOf } from "./profile.ts";
import type { RoutingRuntime } from "./runtime.ts";

/** `discovery_interval_seconds` when the config names none. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 300_000;
/** One discovery call may take this long (start-up waits for the first round of all providers at once). */
const CALL_TIMEOUT_MS = 5_000;
/** After a failure the server is asked again this soon, doubling per failure up to the interval. */
const FIRST_RETRY_MS = 2_000;

export interface DiscoveryDeps {
  catalog: Catalog;
  helpers: ModuleHelpers;
  logger: Logger;
  routing: Pick<RoutingRuntime, "track">;
}

export interface ModelDiscovery {
  /** Runs the first round (every discovering provider at once, each bounded in time) and schedules the next ones. */
  start(): Promise<void>;
  stop(): void;
}

/** The discovery of every provider of the catalog whose adapter lists models and whose interval is not 0. */
export function createModelDiscovery(deps: DiscoveryDeps): ModelDiscovery {
  const discovering = [...deps.catalog.providers.values()].filter((p) => p.adapter.discoverModels !== undefined && p.config.discoveryIntervalMs !== 0);
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let stopped = false;
  const failures = new Map<string, number>();

  const schedule = (provider: ResolvedProvider, ms: number): void => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void round(provider);
    }, ms);
    timer.unref?.();
    timers.add(timer);
  };

  const round = async (provider: ResolvedProvider): Promise<void> => {
    const interval = provider.config.discoveryIntervalMs ?? DEFAULT_DISCOVERY_INTERVAL_MS;
    const id = provider.config.id;
    try {
      const listed = await ask(provider, deps.helpers);
      if (stopped) return;
      if ((failures.get(id) ?? 0) > 0) deps.logger.info({ provider: id, models: listed.length }, "discovery: the provider's server answers again");
      failures.delete(id);
      await apply(provider, listed, deps);
      schedule(provider, interval);
    } catch (error) {
      if (stopped) return;
      const count = (failures.get(id) ?? 0) + 1;
      failures.set(id, count);
      // Logged when it starts failing, not on every retry.
      if (count === 1) deps.logger.warn({ provider: id, err: error }, "discovery: the provider's models could not be listed; its server is asked again soon");
      schedule(provider, Math.min(interval, FIRST_RETRY_MS * 2 ** (count - 1)));
    }
  };

  return {
    async start() {
      await Promise.all(discovering.map((provider) => round(provider)));
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** One call to the adapter, bounded in time; an answer that is not a list of named models is a failure. */
async function ask(provider: ResolvedProvider, helpers: ModuleHelpers): Promise<DiscoveredModel[]> {
  const { config } = provider;
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const target = { providerId: config.id, baseUrl: provider.baseUrl, apiKey: config.apiKey, headers: config.headers, options: config.options };
  const listed: unknown = await provider.adapter.discoverModels!({ target, signal, helpers });
  if (!Array.isArray(listed)) throw new Error("discoverModels did not return a list");
  const models: DiscoveredModel[] = [];
  for (const entry of listed as unknown[]) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === "string" && id !== "") models.push(entry as DiscoveredModel);
  }
  return models;
}

/** Puts the listed models in the catalog, unless they are what it already has (then nothing changes). */
async function apply(provider: ResolvedProvider, listed: DiscoveredModel[], deps: DiscoveryDeps): Promise<void> {
  const id = provider.config.id;
  // A served name the config already lists for this provider is served as configured (its id, its prices).
  const configured = new Set(provider.config.models.map((m) => m.upstreamModel));
  const seen = new Set<string>();
  const models: ModelConfig[] = [];
  for (const entry of listed) {
    if (configured.has(entry.id) || seen.has(entry.id)) continue;
    seen.add(entry.id);
    models.push(discoveredModel(id, entry));
  }
  const before = deps.catalog.discoveredOf(id);
  if (sameModels(before.map((e) => e.model), models)) return;
  const endpoints = models.map((model) => endpointOf(provider, model));
  deps.catalog.setDiscovered(id, endpoints);
  await deps.routing.track(endpoints.map((e) => profileOf(e).key));
  deps.logger.info({ provider: id, models: models.map((m) => m.id) }, "discovery: the provider's models changed");
}

/** A discovered model as the catalog holds configured ones: free unless configured, its context as the server says. */
function discoveredModel(providerId: string, entry: DiscoveredModel): ModelConfig {
  return {
    id: `${providerId}/${entry.id}`,
    upstreamModel: entry.id,
    pricing: { prompt: 0, completion: 0 },
    contextLength: positiveInteger(entry.contextLength),
    maxOutputTokens: positiveInteger(entry.maxOutputTokens),
    supportedParameters: undefined,
    quantization: undefined,
    tiers: undefined,
    dataCollection: undefined,
    zdr: undefined,
    name: undefined,
    description: undefined,
  };
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function sameModels(a: readonly ModelConfig[], b: readonly ModelConfig[]): boolean {
  return a.length === b.length && a.every((m, i) => m.id === b[i]!.id && m.contextLength === b[i]!.contextLength && m.maxOutputTokens === b[i]!.maxOutputTokens);
}
