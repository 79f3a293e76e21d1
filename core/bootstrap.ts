/** Assembles the gateway from configuration: deps, registry, catalog, app. Shared by server.ts, tests and benches. */
import type { FetchFunction } from "./registry/helpers.ts";
import type { Logger } from "pino";
import { builtinPlugins } from "../plugins/index.ts";
import { builtinProviders } from "../providers/index.ts";
import { builtinTools } from "../tools/index.ts";
import { UsageLedger } from "./accounting/ledger.ts";
import { createApp, type GatewayApp } from "./app.ts";
import { startRetentionSweeper, type RetentionSweeper } from "./workspaces/retention.ts";
import { hashSecret, labelOf, newSecret } from "./auth/key-material.ts";
import { KeyCache } from "./auth/key-cache.ts";
import { BatchWorker } from "./batches/worker.ts";
import { DEFAULT_BATCHES, DEFAULT_SANDBOX } from "./config/load.ts";
import { limitsOf, routingOf } from "./config/routing-limits.ts";
import type { GatewayConfig } from "./config/types.ts";
import type { Clock, Deps, IdGenerator } from "./deps.ts";
import { openKv } from "./kv/connect.ts";
import { CreditLedger } from "./limits/credits.ts";
import type { Kv } from "./kv/kv.ts";
import { createLogger } from "./logger.ts";
import { loadExtensions } from "./registry/load-extensions.ts";
import { createModuleHelpers } from "./registry/module-helpers.ts";
import { ModuleError, Registry } from "./registry/registry.ts";
import { checkModuleOptions } from "./registry/options.ts";
import { PLUGIN_SWITCHES, pluginDefaults } from "./pipeline/plugins/active.ts";
import { buildCatalog } from "./routing/catalog.ts";
import { createModelDiscovery } from "./routing/discovery.ts";
import { createRoutingRuntime } from "./routing/runtime.ts";
import { createSafeFetch } from "./net/safe-fetch.ts";
import { openStore } from "./store/connect.ts";
import { openWhenReachable, type StoreWaitOptions } from "./ops/store-wait.ts";
import { createUpstreamFetch } from "./upstream-http/fetch.ts";
import { bunFetchCap, createOneShotFetch } from "./upstream-http/one-shot.ts";
import { IdleTrimmer } from "./ops/idle-trim.ts";
import { DirectoryContainerService } from "./containers/service.ts";
import type { SandboxBackend } from "./sandbox/backend.ts";
import { createSandboxBackend } from "./sandbox/create-backend.ts";
import { createDocumentService } from "./jobs/documents/service.ts";
import { DEFAULT_DOCUMENTS } from "./config/documents.ts";
import { openStreamCount } from "./http/sse.ts";
import { startOperatorSurface } from "./observe/surface.ts";
import { countedApp, type RequestHandler } from "./observe/metrics/counted-app.ts";
import type { Store } from "./store/types.ts";

export interface Gateway {
  deps: Deps;
  /** The request handler: the Elysia app, wrapped to count every HTTP request when metrics are on. */
  app: RequestHandler;
  defaultWorkspaceId: string;
  /** Deletes generation records past their workspace's retention (hourly; tests call `sweep`). */
  retention: RetentionSweeper;
  idleTrimmer: IdleTrimmer;
  /** Flushes the usage ledger and closes the store and kv. */
  close(): Promise<void>;
}

export interface GatewayOverrides {
  logger?: Logger;
  fetch?: FetchFunction;
  /** The fetch of streamed provider calls, when a test wants it apart from `fetch` (default: `fetch`). */
  streamFetch?: FetchFunction;
  clock?: Clock;
  ids?: IdGenerator;
  store?: Store;
  kv?: Kv;
  /** Load-balancing and jitter randomness (tests pass a fixed one). */
  random?: () => number;
  /** How start-up waits for an unreachable store: who hears which store it waits for, where attempts are logged. */
  storeWait?: Partial<Pick<StoreWaitOptions, "onWait" | "logger">>;
  /** What runs container commands (tests pass a small fake; default: `sandbox.backend` of the config). */
  sandboxBackend?: Pick<SandboxBackend, "exec" | "close">;
  /** The DNS of `deps.serverFetch` (tests stub it; default: the system resolver). */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

/** `STORE_WAIT_SECONDS` unless a hand-built config names none. */
const DEFAULT_STORE_WAIT_MS = 180_000;

export const systemClock: Clock = { now: () => Date.now() };
/** Time-ordered (UUIDv7) ids: inserts append to the generations index instead of landing at random pages (~6x cheaper). */
export const randomIds: IdGenerator = { id: (prefix) => prefix + Bun.randomUUIDv7().replaceAll("-", "") };

/** Registers built-ins (static barrels) and the config's extensions; a bad module throws ModuleError. */
export async function buildRegistry(config: GatewayConfig): Promise<Registry> {
  const registry = new Registry();
  for (const module of builtinProviders) registry.register(module, `built-in provider ${module.id}`);
  for (const module of builtinPlugins) registry.register(module, `built-in plugin`);
  for (const module of builtinTools) registry.register(module, `built-in tool ${module.id}`);
  await loadExtensions(config.extensions, registry, config.configDir, config.plugins);
  registry.checkRequirements();
  // The merged plugin defaults (config `plugins` over extension options) are what requests get: check them once.
  for (const [id, options] of Object.entries(config.plugins)) {
    const plugin = registry.plugin(id);
    if (!plugin) throw new ModuleError(`invalid config field "plugins.${id}": no plugin with id "${id}" is registered`);
    // `enabled` and `locked` are the operator's switches (core/pipeline/plugins/active.ts), not plugin options.
    for (const key of PLUGIN_SWITCHES) {
      if (options[key] !== undefined && typeof options[key] !== "boolean") throw new ModuleError(`invalid config field "plugins.${id}.${key}": must be a boolean`);
    }
    checkModuleOptions(plugin, pluginDefaults(options), `config plugins.${id}`);
  }
  // Tool settings too: a typo in `tools.web_search` stops start-up instead of surfacing per request.
  for (const [name, settings] of Object.entries(config.tools)) {
    const tool = registry.tool(`service:${name}`);
    if (!tool) throw new ModuleError(`invalid config field "tools.${name}": no server tool "service:${name}" is registered`);
    checkModuleOptions(tool, settings, `config tools.${name}`);
  }
  return registry;
}

export async function createGateway(config: GatewayConfig, overrides: GatewayOverrides = {}): Promise<Gateway> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  // Everything that can reject the configuration runs before any connection is opened.
  const registry = await buildRegistry(config);
  const catalog = buildCatalog(config.providers, registry);
  // Validates `network.allow_private`. Over Bun's fetch (it pins TLS to the real name, core/net/safe-fetch.ts) or the test's.
  const serverFetch = createSafeFetch({
    allowPrivate: config.network.allowPrivate,
    ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
    ...(overrides.resolveHost ? { resolve: overrides.resolveHost } : {}),
  });
  // Start in any order: an unreachable store is waited for (README "Operations: store outages").
  const wait: StoreWaitOptions = { limitMs: config.storeWaitMs ?? DEFAULT_STORE_WAIT_MS, logger, ...overrides.storeWait };
  const store = overrides.store ?? (await openWhenReachable("database", () => openStore(config.databaseUrl, { logger }), wait));
  const kv = overrides.kv ?? (await openWhenReachable("redis", () => openKv(config.redisUrl, logger), wait).catch(async (error: unknown) => {
    if (!overrides.store) await store.close();
    throw error;
  }));
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? randomIds;
  // Streamed provider calls go over our own keep-alive sockets; one-shot calls over Bun's fetch while it has room,
  // then over ours (core/upstream-http/one-shot.ts). Tests inject their own fetch for both.
  const upstreamFetch = overrides.fetch ? undefined : createUpstreamFetch({ logger });
  const streamFetch = overrides.streamFetch ?? overrides.fetch ?? upstreamFetch!;
  const fetchImpl = overrides.fetch ?? createOneShotFetch({ bunFetch: globalThis.fetch, own: upstreamFetch!, limit: Math.floor(bunFetchCap(process.env) / 2) });
  const ledger = new UsageLedger(store, logger);
  const keyCache = new KeyCache(store.keys, kv, () => clock.now());
  const routing = createRoutingRuntime({ kv, clock, logger, catalog, settings: routingOf(config), ...(overrides.random ? { random: overrides.random } : {}) });
  const credits = new CreditLedger(kv, store, ledger, clock, logger, limitsOf(config));
  // PDFs and HTML pages are read in worker threads under caps (README "Caps on heavy work"); workers start on first use.
  const documents = createDocumentService(config.documents ?? DEFAULT_DOCUMENTS);
  // Metrics and (when configured) tracing: README "Operating the gateway".
  const surface = await startOperatorSurface(config, clock, logger);
  const deps: Deps = {
    config,
    clock,
    ids,
    fetch: fetchImpl,
    serverFetch,
    store,
    kv,
    logger,
    registry,
    catalog,
    ledger,
    keyCache,
    helpers: createModuleHelpers({ logger, fetch: fetchImpl, kv, clock, ids, documents }),
    guardedHelpers: createModuleHelpers({ logger, fetch: serverFetch, kv, clock, ids, documents }),
    streamHelpers: createModuleHelpers({ logger, fetch: streamFetch, kv, clock, ids, documents }),
    routing,
    credits,
    ...(surface.observer ? { observer: surface.observer } : {}),
    ...(surface.metrics ? { metrics: surface.metrics } : {}),
  };
  const workspace = await store.workspaces.ensureDefault();
  ledger.start();
  await keyCache.start();
  await routing.start();
  // Local model servers' models (README "OpenAI-compatible providers"): the first round before serving, bounded in time.
  const discovery = createModelDiscovery({ catalog, helpers: deps.helpers, logger, routing });
  await discovery.start();
  // One batch worker per process, unless configured off (an API-only process).
  const batches = config.batches ?? DEFAULT_BATCHES;
  const batchWorker = batches.worker ? new BatchWorker(deps, batches) : undefined;
  deps.batchWorker = batchWorker;
  const trimmer = new IdleTrimmer({
    idleMs: config.idleTrimMs,
    // Batch items run without HTTP requests: they keep the process busy too.
    busy: () => openStreamCount() > 0 || (batchWorker?.runningItems ?? 0) > 0,
    onTrim: (report) => logger.debug({ rss_before: report.rssBeforeBytes, rss_after: report.rssAfterBytes, ms: Math.round(report.ms) }, "idle: memory given back"),
  });
  deps.idleTrimmer = trimmer;
  // Containers (README "Containers"): a sandbox backend runs commands, the service keeps their files under sandbox.dir.
  const sandbox = config.sandbox ?? DEFAULT_SANDBOX;
  const sandboxSettings = {
    backend: sandbox.backend,
    workers: sandbox.workers,
    queueTimeoutMs: sandbox.queueTimeoutMs,
    allowFallback: sandbox.allowFallback,
    maxFsBytes: sandbox.maxBytes,
    maxFiles: sandbox.maxFiles,
    bwrapPath: sandbox.bwrapPath,
    maxProcesses: sandbox.maxProcesses,
    firstUid: sandbox.firstUid,
  };
  const sandboxBackend = overrides.sandboxBackend ?? (await createSandboxBackend(sandboxSettings, logger));
  const containers = new DirectoryContainerService({ settings: sandbox, backend: sandboxBackend, clock, logger });
  deps.containers = containers;
  await containers.start();
  surface.metrics?.start(deps);
  const elysia: GatewayApp = createApp(deps, workspace.id);
  const app = surface.metrics ? countedApp(elysia, surface.metrics.families) : elysia;
  batchWorker?.start();
  trimmer.start();
  const retention = startRetentionSweeper(deps);
  return {
    deps,
    app,
    defaultWorkspaceId: workspace.id,
    retention,
    idleTrimmer: trimmer,
    async close() {
      retention.stop();
      trimmer.stop();
      discovery.stop();
      // First: the worker gives its running items back and its last results reach the ledger before it flushes.
      await batchWorker?.stop();
      containers.stop();
      await sandboxBackend.close();
      documents.close();
      routing.stop();
      await ledger.close();
      await kv.close();
      await store.close();
      upstreamFetch?.close();
      await surface.close();
    },
  };
}

/** On an empty database with no GATEWAY_ADMIN_KEY: one (operator) management and one inference key, returned to print once. */
export async function ensureFirstKeys(gateway: Gateway): Promise<{ management: string; inference: string } | undefined> {
  const { deps } = gateway;
  if (deps.config.adminKey || (await deps.store.keys.count()) > 0) return undefined;
  const make = async (name: string, isManagement: boolean) => {
    const secret = newSecret();
    await deps.store.keys.create({
      hash: hashSecret(secret),
      workspaceId: gateway.defaultWorkspaceId,
      name,
      label: labelOf(secret),
      isManagement,
      // The first management key is the operator's: it administers every workspace (README "Workspaces").
      isOperator: isManagement,
      limit: null,
      limitReset: null,
      expiresAt: null,
    });
    return secret;
  };
  return { management: await make("first management key", true), inference: await make("first inference key", false) };
}
