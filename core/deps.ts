/** Everything injected: clock, ids, fetch, store, kv and logger arrive in one object. */
import type { FetchFunction } from "./registry/helpers.ts";
import type { Logger } from "pino";
import type { GatewayConfig } from "./config/types.ts";
import type { Catalog } from "./routing/catalog.ts";
import type { Kv } from "./kv/kv.ts";
import type { Registry } from "./registry/registry.ts";
import type { Store } from "./store/types.ts";
import type { UsageLedger } from "./accounting/ledger.ts";
import type { KeyCache } from "./auth/key-cache.ts";
import type { ModuleHelpers } from "./registry/helpers.ts";
import type { CreditLedger } from "./limits/credits.ts";
import type { RoutingRuntime } from "./routing/runtime.ts";
import type { ContainerService } from "./containers/contract.ts";
import type { Observer } from "./observe/observer.ts";
import type { GatewayMetrics } from "./observe/metrics/metrics.ts";

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export interface IdGenerator {
  /** A new unique id with the given prefix, e.g. `gen-…`. */
  id(prefix: string): string;
}

export interface Deps {
  config: GatewayConfig;
  clock: Clock;
  ids: IdGenerator;
  fetch: FetchFunction;
  /**
   * Server-side fetches of tools and plugins (web pages, search engines, image and file URLs) go through the network
   * policy (core/net/safe-fetch.ts): http(s) only, every resolved address on every redirect checked against
   * private, loopback, link-local and metadata ranges unless `network.allow_private` allows it; a refusal rejects
   * with NetworkPolicyError.
   */
  serverFetch: FetchFunction;
  store: Store;
  kv: Kv;
  logger: Logger;
  registry: Registry;
  catalog: Catalog;
  ledger: UsageLedger;
  keyCache: KeyCache;
  /** What provider adapters receive instead of importing our runtime values (`fetch`: the upstream client). */
  helpers: ModuleHelpers;
  /** What plugins and tools receive: the same, with `fetch` under the network policy (serverFetch). */
  guardedHelpers: ModuleHelpers;
  /** The same, with the fetch suited to a streamed provider call (ProviderCall.helpers of a stream). */
  streamHelpers: ModuleHelpers;
  /** Endpoint health (shared circuit breakers), rolling endpoint statistics, load-balancing randomness. */
  routing: RoutingRuntime;
  /** Credit windows and reservations of keys with a `limit`. */
  credits: CreditLedger;
  /** Containers of the bash, shell, files and apply_patch tools (absent: those tools fail with a tool error). */
  containers?: ContainerService;
  /** This process's batch worker, when it runs one (README "Batches"); routes wake it when work arrives. */
  batchWorker?: { wake(): void; readonly runningItems?: number };
  /** Counts requests so memory can be given back once traffic stops (core/ops/idle-trim.ts). */
  idleTrimmer?: { touch(): void };
  /** Told of turns, tool calls and settled requests: metrics and traces (core/observe/); absent when both are off. */
  observer?: Observer;
  /** What `GET /metrics` serves; absent when `metrics.enabled` is false. */
  metrics?: GatewayMetrics;
}
