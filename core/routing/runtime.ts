/**
 * The routing state a gateway process keeps for its lifetime (in `deps.routing`): endpoint health (circuit
 * breakers shared through the kv), rolling endpoint statistics and the random source of load balancing and retry
 * jitter. Built once at start-up from the catalog.
 */
import type { Logger } from "pino";
import type { RoutingConfig } from "../config/routing-limits.ts";
import type { Clock } from "../deps.ts";
import type { Kv } from "../kv/kv.ts";
import type { Catalog } from "./catalog.ts";
import { EndpointHealth } from "./health.ts";
import { profileOf } from "./profile.ts";
import { EndpointStats } from "./stats.ts";

export interface RoutingRuntime {
  health: EndpointHealth;
  stats: EndpointStats;
  /** Uniform in [0, 1); tests pass a seeded or fixed one. */
  random: () => number;
  /** Subscribes to health changes, loads running cooldowns and starts the statistics sync. */
  start(): Promise<void>;
  /** Endpoints added to the catalog after start-up (discovered models): their cooldowns loaded, their statistics shared. */
  track(keys: readonly string[]): Promise<void>;
  stop(): void;
}

export interface RoutingRuntimeDeps {
  kv: Kv;
  clock: Clock;
  logger: Logger;
  catalog: Catalog;
  settings: RoutingConfig;
  random?: () => number;
}

/** Creates the runtime; nothing runs until `start`. */
export function createRoutingRuntime(deps: RoutingRuntimeDeps): RoutingRuntime {
  const health = new EndpointHealth(deps.kv, deps.clock, deps.logger, deps.settings.breaker);
  const stats = new EndpointStats(deps.kv, deps.logger, deps.settings.stats.samples);
  const keys = deps.catalog.list().flatMap((model) => model.endpoints.map((e) => profileOf(e).key));
  return {
    health,
    stats,
    random: deps.random ?? Math.random,
    async start() {
      await health.start(keys);
      // The same array: keys tracked later are synced too.
      stats.start(keys, deps.settings.stats.syncIntervalMs);
    },
    async track(added) {
      const fresh = added.filter((key) => !keys.includes(key));
      if (fresh.length === 0) return;
      keys.push(...fresh);
      await health.load(fresh).catch((error: unknown) => deps.logger.warn({ err: error }, "routing: cooldowns of discovered endpoints could not be read"));
    },
    stop() {
      stats.stop();
    },
  };
}
