/** Reads env and the JSON config file into a validated GatewayConfig; any problem names the bad field. */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { dirname, resolve } from "node:path";
import { ConfigFileSchema, type ConfigFile } from "./file-schema.ts";
import { toProviderTimeouts, toProviderTls } from "./provider-transport.ts";
import { toDocumentsConfig } from "./documents.ts";
import { toLimitsConfig, toRoutingConfig } from "./routing-limits.ts";
import { ObservabilityConfigError, toMetricsConfig, toTracingConfig } from "./observability.ts";
import { SANDBOX_DEFAULTS } from "../sandbox/settings.ts";
import { simulatorProvider } from "./simulator-default.ts";
import type { BatchesConfig, ExtensionRef, GatewayConfig, GuardrailsConfig, ModelConfig, ProviderConfig, SandboxConfig } from "./types.ts";

/** Thrown for invalid configuration; server.ts prints the message and exits non-zero. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const fileValidator = TypeCompiler.Compile(ConfigFileSchema);

const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
/** A client that takes no bytes of its stream for this long is gone in all but name (README "Streams"). */
export const DEFAULT_STREAM_WRITE_TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;

export async function loadConfig(env: Env = process.env): Promise<GatewayConfig> {
  const configPath = env.GATEWAY_CONFIG;
  const file = configPath ? await readConfigFile(configPath) : {};
  const configDir = configPath ? dirname(resolve(configPath)) : process.cwd();
  return buildConfig(file, env, configDir);
}

/** Parses and validates a config file; the error names the JSON path of the first bad field. */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  const handle = Bun.file(path);
  if (!(await handle.exists())) throw new ConfigError(`GATEWAY_CONFIG: file not found: ${path}`);
  let raw: unknown;
  try {
    raw = JSON.parse(await handle.text());
  } catch (error) {
    throw new ConfigError(`GATEWAY_CONFIG: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return validateConfigFile(raw);
}

export function validateConfigFile(raw: unknown): ConfigFile {
  const first = fileValidator.Errors(raw).First();
  if (first) {
    const field = first.path === "" ? "(root)" : first.path.slice(1).replaceAll("/", ".");
    throw new ConfigError(`invalid config field "${field}": ${first.message}`);
  }
  return raw as ConfigFile;
}

export function buildConfig(file: ConfigFile, env: Env, configDir: string): GatewayConfig {
  const providers = (file.providers ?? []).map((p, i) => toProvider(p, i, env, configDir));
  if (providers.length === 0 || file.simulator === true) providers.unshift(simulatorProvider());
  assertUnique(providers.map((p) => p.id), "providers[].id");
  return {
    host: env.HOST || "0.0.0.0",
    port: parsePort(env.PORT),
    databaseUrl: env.DATABASE_URL || "sqlite://./data/gateway.db",
    redisUrl: env.REDIS_URL || undefined,
    storeWaitMs: parseSeconds(env.STORE_WAIT_SECONDS, "STORE_WAIT_SECONDS", DEFAULT_STORE_WAIT_SECONDS) * 1000,
    logLevel: env.LOG_LEVEL || "info",
    adminKey: env.GATEWAY_ADMIN_KEY || undefined,
    bodyLimitBytes: file.server?.body_limit_bytes ?? DEFAULT_BODY_LIMIT,
    idleTimeoutSeconds: file.server?.idle_timeout_seconds ?? 255,
    keepAliveMs: file.server?.keep_alive_ms ?? 15_000,
    shutdownGraceMs: file.server?.shutdown_grace_ms ?? 30_000,
    idleTrimMs: file.server?.idle_trim_ms ?? 10_000,
    // Bounds of reading a request body; absent ones take core/http/edge-limits.ts defaults.
    ...(file.server?.body_timeout_ms !== undefined ? { bodyTimeoutMs: file.server.body_timeout_ms } : {}),
    ...(file.server?.body_grace_ms !== undefined ? { bodyGraceMs: file.server.body_grace_ms } : {}),
    ...(file.server?.body_min_bytes_per_second !== undefined ? { bodyMinBytesPerSecond: file.server.body_min_bytes_per_second } : {}),
    ...(file.server?.max_json_depth !== undefined ? { maxJsonDepth: file.server.max_json_depth } : {}),
    streamWriteTimeoutMs: file.server?.stream_write_timeout_ms ?? DEFAULT_STREAM_WRITE_TIMEOUT_MS,
    providers,
    extensions: (file.extensions ?? []).map(toExtension),
    plugins: file.plugins ?? {},
    tools: toToolSettings(file.tools ?? {}, env),
    agentLoop: { toolConcurrency: file.agent_loop?.tool_concurrency ?? 8, toolTimeoutMs: file.agent_loop?.tool_timeout_ms ?? 30_000 },
    network: { allowPrivate: file.network?.allow_private ?? [] },
    routing: toRoutingConfig(file.routing),
    limits: toLimitsConfig(file.limits),
    batches: toBatches(file.batches),
    sandbox: toSandbox(file.sandbox),
    ...(file.guardrails ? { guardrails: toGuardrails(file.guardrails) } : {}),
    documents: toDocumentsConfig(file.documents),
    ...observability(file, env),
    // Absent, the recording takes its default (core/idempotency/recording.ts).
    ...(file.idempotency?.max_reply_bytes !== undefined ? { idempotency: { maxReplyBytes: file.idempotency.max_reply_bytes } } : {}),
    ...(file.strict !== undefined ? { strict: file.strict } : {}),
    configDir,
  };
}

function observability(file: ConfigFile, env: Env): Pick<GatewayConfig, "metrics" | "tracing"> {
  try {
    const tracing = toTracingConfig(file.tracing, env);
    return { metrics: toMetricsConfig(file.metrics, env), ...(tracing ? { tracing } : {}) };
  } catch (error) {
    if (error instanceof ObservabilityConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * Batch defaults: half price (reference b7); a lease renewed every third of it, short enough that the claims of a
 * process that is gone are taken over within 15 s (hardening issue), long enough that a renewal is never missed.
 */
export const DEFAULT_BATCHES: BatchesConfig = Object.freeze({
  worker: true,
  concurrency: 16,
  perBatchConcurrency: 4,
  discount: 0.5,
  pollIntervalMs: 1_000,
  leaseMs: 10_000,
  getRateLimitPerMinute: 600,
});

function toBatches(b: ConfigFile["batches"]): BatchesConfig {
  const d = DEFAULT_BATCHES;
  return {
    worker: b?.worker ?? d.worker,
    concurrency: b?.concurrency ?? d.concurrency,
    perBatchConcurrency: b?.per_batch_concurrency ?? d.perBatchConcurrency,
    discount: b?.discount ?? d.discount,
    pollIntervalMs: b?.poll_interval_ms ?? d.pollIntervalMs,
    leaseMs: b?.lease_ms ?? d.leaseMs,
    getRateLimitPerMinute: b?.get_rate_limit_per_minute ?? d.getRateLimitPerMinute,
  };
}

function toGuardrails(g: NonNullable<ConfigFile["guardrails"]>): GuardrailsConfig {
  return {
    ...(g.pattern_max_instructions !== undefined ? { patternMaxInstructions: g.pattern_max_instructions } : {}),
    ...(g.scan_budget_steps !== undefined ? { scanBudgetSteps: g.scan_budget_steps } : {}),
  };
}

/** Container defaults (README "Containers"): quotas a model's work fits in, a sweep often enough to free disk soon. */
export const DEFAULT_SANDBOX: SandboxConfig = Object.freeze({
  backend: "just-bash",
  dir: "./data/containers",
  maxBytes: 100 * 1024 * 1024,
  maxFiles: 10_000,
  sweepIntervalMs: 60_000,
  workers: 4,
  listScanBound: 1_000,
  queueTimeoutMs: SANDBOX_DEFAULTS.queueTimeoutMs,
  allowFallback: SANDBOX_DEFAULTS.allowFallback,
  bwrapPath: SANDBOX_DEFAULTS.bwrapPath,
  maxProcesses: SANDBOX_DEFAULTS.maxProcesses,
  firstUid: SANDBOX_DEFAULTS.firstUid,
});

function toSandbox(s: ConfigFile["sandbox"]): SandboxConfig {
  const d = DEFAULT_SANDBOX;
  return {
    backend: s?.backend ?? d.backend,
    dir: s?.dir ?? d.dir,
    maxBytes: s?.max_bytes ?? d.maxBytes,
    maxFiles: s?.max_files ?? d.maxFiles,
    sweepIntervalMs: s?.sweep_interval_ms ?? d.sweepIntervalMs,
    workers: s?.workers ?? d.workers,
    listScanBound: s?.list_scan_bound ?? d.listScanBound,
    queueTimeoutMs: s?.queue_timeout_ms ?? d.queueTimeoutMs,
    allowFallback: s?.allow_fallback ?? d.allowFallback,
    bwrapPath: s?.bwrap_path ?? d.bwrapPath,
    maxProcesses: s?.max_processes ?? d.maxProcesses,
    firstUid: s?.first_uid ?? d.firstUid,
  };
}

type ProviderEntry = NonNullable<ConfigFile["providers"]>[number];
type ModelEntry = NonNullable<ProviderEntry["models"]>[number];

function toProvider(p: ProviderEntry, index: number, env: Env, configDir: string): ProviderConfig {
  const where = `providers[${index}]`;
  // A kind may bring its own base URL (checked with the adapter's kinds when the catalog is built).
  if (p.adapter !== "simulator" && !p.base_url && p.kind === undefined) throw new ConfigError(`invalid config field "${where}.base_url": required`);
  const tls = toProviderTls(p.tls, where, configDir, (message) => new ConfigError(message));
  const timeouts = toProviderTimeouts(p.timeouts);
  return {
    ...(tls ? { tls } : {}),
    ...(timeouts ? { timeouts } : {}),
    ...(p.kind !== undefined ? { kind: p.kind } : {}),
    ...(p.discovery_interval_seconds !== undefined ? { discoveryIntervalMs: p.discovery_interval_seconds * 1000 } : {}),
    id: p.id,
    adapter: p.adapter,
    // Empty when a kind supplies it.
    baseUrl: (p.base_url ?? (p.kind !== undefined ? "" : "simulator://local")).replace(/\/+$/, ""),
    apiKey: resolveSecret(p.api_key, `${where}.api_key`, env),
    headers: p.headers ?? {},
    options: p.options ?? {},
    models: (p.models ?? []).map((m, j) => toModel(m, `${where}.models[${j}]`)),
    simulated: p.adapter === "simulator",
  };
}

function toModel(m: ModelEntry, where: string): ModelConfig {
  const price = (v: number | string | undefined, field: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = typeof v === "number" ? v : Number(v);
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`invalid config field "${where}.pricing.${field}": not a price`);
    return n;
  };
  const pricing = m.pricing;
  return {
    id: m.id,
    upstreamModel: m.upstream_model ?? m.id,
    pricing: {
      prompt: price(pricing?.prompt, "prompt") ?? 0,
      completion: price(pricing?.completion, "completion") ?? 0,
      ...optional("cacheRead", price(pricing?.cache_read, "cache_read")),
      ...optional("cacheWrite", price(pricing?.cache_write, "cache_write")),
      ...optional("reasoning", price(pricing?.reasoning, "reasoning")),
      ...optional("request", price(pricing?.request, "request")),
      ...optional("image", price(pricing?.image, "image")),
    },
    contextLength: m.context_length,
    maxOutputTokens: m.max_output_tokens,
    supportedParameters: m.supported_parameters,
    quantization: m.quantization,
    tiers: m.tiers,
    dataCollection: m.data_collection,
    zdr: m.zdr,
    name: m.name,
    description: m.description,
    ...(m.output_modalities ? { outputModalities: [...m.output_modalities] } : {}),
    ...(m.input_modalities ? { inputModalities: [...m.input_modalities] } : {}),
    ...(m.quality ? { quality: { ...m.quality } } : {}),
  };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

function resolveSecret(value: string | { env: string } | undefined, field: string, env: Env): string | undefined {
  if (value === undefined || typeof value === "string") return value;
  const resolved = env[value.env];
  if (!resolved) throw new ConfigError(`invalid config field "${field}": environment variable ${value.env} is not set`);
  return resolved;
}

/** Tool settings with `{env: NAME}` values (API keys) read from the environment. */
function toToolSettings(tools: Record<string, Record<string, unknown>>, env: Env): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, settings] of Object.entries(tools)) {
    out[name] = Object.fromEntries(
      Object.entries(settings).map(([key, value]) => [key, isEnvRef(value) ? resolveSecret(value, `tools.${name}.${key}`, env) : value]),
    );
  }
  return out;
}

function isEnvRef(value: unknown): value is { env: string } {
  return typeof value === "object" && value !== null && Object.keys(value).length === 1 && typeof (value as { env?: unknown }).env === "string";
}

function toExtension(entry: string | { module: string; options?: Record<string, unknown> }): ExtensionRef {
  return typeof entry === "string" ? { module: entry, options: {} } : { module: entry.module, options: entry.options ?? {} };
}

/** Start-up waits this long for an unreachable store: a few minutes covers a database booting beside the gateway. */
const DEFAULT_STORE_WAIT_SECONDS = 180;

function parseSeconds(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(seconds)) throw new ConfigError(`${name}: not a number of seconds: ${raw}`);
  return seconds;
}

function parsePort(raw: string | undefined): number {
  if (!raw) return 8080;
  const port = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT: not a port number: ${raw}`);
  return port;
}

function assertUnique(ids: string[], field: string): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new ConfigError(`invalid config field "${field}": duplicate id "${id}"`);
    seen.add(id);
  }
}
