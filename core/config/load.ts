/** Reads env and the JSON config file into a validated GatewayConfig; any problem names the bad field. */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { dirname, resolve } from "node:path";
import { deepFreeze, resolveDefaults } from "./defaults.ts";
import { AgentLoopFileSchema, BatchesFileSchema, ConfigFileSchema, NetworkFileSchema, SandboxFileSchema, ServerFileSchema, type ConfigFile } from "./file-schema.ts";
import { toProviderTimeouts, toProviderTls } from "./provider-transport.ts";
import { toAzureOptions } from "./azure-provider.ts";
import { toVertexFields } from "./vertex-provider.ts";
import { toDocumentsConfig } from "./documents.ts";
import { toCacheConfig } from "./cache.ts";
import { toLimitsConfig, toRoutingConfig } from "./routing-limits.ts";
import { toEmbeddingsConfig } from "./embeddings.ts";
import { ObservabilityConfigError, toMetricsConfig, toTracingConfig } from "./observability.ts";
import { simulatorProvider } from "./simulator-default.ts";
import type { BatchesConfig, ExtensionRef, GatewayConfig, GuardrailsConfig, ModelConfig, ProviderConfig, SandboxConfig } from "./types.ts";

/** Thrown for invalid configuration; server.ts prints the message and exits non-zero. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const fileValidator = TypeCompiler.Compile(ConfigFileSchema);

/** What a hand-built config without `streamWriteTimeoutMs` gets (file-schema.ts `server.stream_write_timeout_ms`). */
export const DEFAULT_STREAM_WRITE_TIMEOUT_MS = resolveDefaults(ServerFileSchema, undefined).stream_write_timeout_ms;

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
  const server = resolveDefaults(ServerFileSchema, file.server);
  const agentLoop = resolveDefaults(AgentLoopFileSchema, file.agent_loop);
  return {
    host: env.HOST || "0.0.0.0",
    port: parsePort(env.PORT),
    databaseUrl: env.DATABASE_URL || "sqlite://./data/gateway.db",
    redisUrl: env.REDIS_URL || undefined,
    storeWaitMs: parseSeconds(env.STORE_WAIT_SECONDS, "STORE_WAIT_SECONDS", DEFAULT_STORE_WAIT_SECONDS) * 1000,
    logLevel: env.LOG_LEVEL || "info",
    adminKey: env.GATEWAY_ADMIN_KEY || undefined,
    ...(env.GATEWAY_SECRET_KEY ? { secretKey: parseSecretKey(env.GATEWAY_SECRET_KEY) } : {}),
    bodyLimitBytes: server.body_limit_bytes,
    idleTimeoutSeconds: server.idle_timeout_seconds,
    keepAliveMs: server.keep_alive_ms,
    shutdownGraceMs: server.shutdown_grace_ms,
    idleTrimMs: server.idle_trim_ms,
    // Bounds of reading a request body; absent ones take core/http/edge-limits.ts defaults.
    ...(server.body_timeout_ms !== undefined ? { bodyTimeoutMs: server.body_timeout_ms } : {}),
    ...(server.body_grace_ms !== undefined ? { bodyGraceMs: server.body_grace_ms } : {}),
    ...(server.body_min_bytes_per_second !== undefined ? { bodyMinBytesPerSecond: server.body_min_bytes_per_second } : {}),
    ...(server.max_json_depth !== undefined ? { maxJsonDepth: server.max_json_depth } : {}),
    streamWriteTimeoutMs: server.stream_write_timeout_ms,
    providers,
    extensions: (file.extensions ?? []).map(toExtension),
    plugins: file.plugins ?? {},
    tools: toToolSettings(file.tools ?? {}, env),
    agentLoop: { toolConcurrency: agentLoop.tool_concurrency, toolTimeoutMs: agentLoop.tool_timeout_ms },
    network: { allowPrivate: resolveDefaults(NetworkFileSchema, file.network).allow_private },
    routing: toRoutingConfig(file.routing),
    limits: toLimitsConfig(file.limits),
    embeddings: toEmbeddingsConfig(file.embeddings),
    batches: toBatches(file.batches),
    sandbox: toSandbox(file.sandbox),
    ...(file.guardrails ? { guardrails: toGuardrails(file.guardrails) } : {}),
    documents: toDocumentsConfig(file.documents),
    cache: toCacheConfig(file.cache),
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

function toBatches(section: ConfigFile["batches"]): BatchesConfig {
  const b = resolveDefaults(BatchesFileSchema, section);
  return {
    worker: b.worker,
    concurrency: b.concurrency,
    perBatchConcurrency: b.per_batch_concurrency,
    discount: b.discount,
    pollIntervalMs: b.poll_interval_ms,
    leaseMs: b.lease_ms,
    getRateLimitPerMinute: b.get_rate_limit_per_minute,
  };
}

/** What a config without a `batches` section gets (file-schema.ts has the values). */
export const DEFAULT_BATCHES: BatchesConfig = deepFreeze(toBatches(undefined));

function toGuardrails(g: NonNullable<ConfigFile["guardrails"]>): GuardrailsConfig {
  return {
    ...(g.pattern_max_instructions !== undefined ? { patternMaxInstructions: g.pattern_max_instructions } : {}),
    ...(g.scan_budget_steps !== undefined ? { scanBudgetSteps: g.scan_budget_steps } : {}),
  };
}

function toSandbox(section: ConfigFile["sandbox"]): SandboxConfig {
  const s = resolveDefaults(SandboxFileSchema, section);
  return {
    backend: s.backend,
    dir: s.dir,
    maxBytes: s.max_bytes,
    maxFiles: s.max_files,
    sweepIntervalMs: s.sweep_interval_ms,
    workers: s.workers,
    listScanBound: s.list_scan_bound,
    queueTimeoutMs: s.queue_timeout_ms,
    allowFallback: s.allow_fallback,
    bwrapPath: s.bwrap_path,
    maxProcesses: s.max_processes,
    firstUid: s.first_uid,
  };
}

/** What a config without a `sandbox` section gets (file-schema.ts has the values). */
export const DEFAULT_SANDBOX: SandboxConfig = deepFreeze(toSandbox(undefined));

type ProviderEntry = NonNullable<ConfigFile["providers"]>[number];
type ModelEntry = NonNullable<ProviderEntry["models"]>[number];

function toProvider(p: ProviderEntry, index: number, env: Env, configDir: string): ProviderConfig {
  const where = `providers[${index}]`;
  // Whether a base URL is needed is the adapter's to say (a cloud adapter derives it from its region): the catalog checks it.
  const tls = toProviderTls(p.tls, where, configDir, (message) => new ConfigError(message));
  const timeouts = toProviderTimeouts(p.timeouts);
  const azure = toAzureOptions(p, where, (value, field) => resolveSecret(value, field, env), (message) => new ConfigError(message));
  const vertex = toVertexFields(p, where, env, configDir, (value, field) => resolveSecret(value, field, env), (message) => new ConfigError(message));
  // Vertex's credentials travel in its options (a key is not a flat map of secrets); the others' as `credentials`.
  const credentials = vertex === undefined && p.credentials !== undefined ? resolveSecrets(p.credentials as Record<string, string | { env: string }>, `${where}.credentials`, env) : undefined;
  return {
    ...(tls ? { tls } : {}),
    ...(timeouts ? { timeouts } : {}),
    ...(p.kind !== undefined ? { kind: p.kind } : {}),
    ...(p.discovery_interval_seconds !== undefined ? { discoveryIntervalMs: p.discovery_interval_seconds * 1000 } : {}),
    id: p.id,
    adapter: p.adapter,
    baseUrl: (p.base_url ?? (p.adapter === "simulator" ? "simulator://local" : "")).replace(/\/+$/, ""),
    apiKey: resolveSecret(p.api_key, `${where}.api_key`, env),
    ...(vertex !== undefined ? { region: vertex.region } : p.region !== undefined ? { region: p.region } : {}),
    ...(credentials !== undefined ? { credentials } : {}),
    headers: p.headers ?? {},
    options: azure ? { ...p.options, ...azure } : vertex ? { ...p.options, ...vertex.options } : (p.options ?? {}),
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
    ...(m.max_batch_size !== undefined ? { maxBatchSize: m.max_batch_size } : {}),
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

/** An object of secrets (cloud `credentials`), each `{env}` read from the environment, naming the field when unset. */
function resolveSecrets(values: Record<string, string | { env: string } | undefined>, field: string, env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const resolved = resolveSecret(value, `${field}.${key}`, env);
    if (resolved !== undefined) out[key] = resolved;
  }
  return out;
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

/** GATEWAY_SECRET_KEY: 32 bytes as 64 hex characters (README "Bring your own keys"); never echoed in an error. */
function parseSecretKey(raw: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(raw.trim())) throw new ConfigError("GATEWAY_SECRET_KEY: must be 32 bytes as 64 hexadecimal characters");
  return raw.trim().toLowerCase();
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
