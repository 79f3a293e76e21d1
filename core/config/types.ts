/** The gateway's configuration after env and the JSON file are read and validated (README "Configuration"). */
import type { LimitsConfig, RoutingConfig } from "./routing-limits.ts";
import type { EmbeddingsConfig } from "./embeddings.ts";
import type { MetricsConfig, TracingConfig } from "./observability.ts";
import type { DocumentsConfig } from "./documents.ts";
import type { CacheConfig } from "./cache.ts";
import type { ProviderTimeouts, ProviderTls } from "./provider-transport.ts";

/** USD per token (per request for `request`, per generated image for `image`). */
export interface Pricing {
  prompt: number;
  completion: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  request?: number;
  /** USD per image the model generates (image output in a reply, or one `service:image_generation` call). */
  image?: number;
}

/** What a model can produce (config `output_modalities`). */
/** `embeddings` and `rerank` make the model a retrieval model (README "Embeddings and rerank"): no chat, no images. */
export type OutputModality = "text" | "image" | "embeddings" | "rerank";

/** What a model can read (config `input_modalities`); `file` = PDFs as files. */
export type InputModality = "text" | "image" | "file";

export interface ModelConfig {
  /** The id clients send, e.g. `acme/model-a`. */
  id: string;
  /** The name the upstream knows. */
  upstreamModel: string;
  pricing: Pricing;
  contextLength: number | undefined;
  maxOutputTokens: number | undefined;
  /** Capabilities and policies used by routing (issue "Routing"). */
  supportedParameters: string[] | undefined;
  quantization: string | undefined;
  tiers: string[] | undefined;
  dataCollection: "allow" | "deny" | undefined;
  zdr: boolean | undefined;
  name: string | undefined;
  description: string | undefined;
  /**
   * What the model produces; undefined when the config does not say (then the upstream decides what it can do, and
   * the model is not offered for `service:image_generation`). Optional so hand-built configs need not name it.
   */
  outputModalities?: OutputModality[];
  /** The most inputs one upstream embeddings call may carry (config `max_batch_size`); larger requests are split. */
  maxBatchSize?: number;
  /** Quality scores 0–1 per task type for the router plugins (config `quality`); undefined when not given. */
  quality?: Record<string, number>;
  /** What the model reads; undefined when the config does not say (file-parser then extracts PDFs' text for it). */
  inputModalities?: InputModality[];
}

export interface ProviderConfig {
  id: string;
  adapter: string;
  /** The adapter's named variant (config `kind`), resolved once at start-up (core/routing/catalog.ts). */
  kind?: string;
  /** Models asked of the server this often when the adapter discovers them (default 5 min); 0: never. */
  discoveryIntervalMs?: number;
  baseUrl: string;
  apiKey: string | undefined;
  /** A cloud provider's region (config `region`); shown by `/providers` and the model listings. */
  region?: string;
  /** A cloud provider's credentials (config `credentials`), each secret read from its `{"env"}` already. */
  credentials?: Record<string, string>;
  headers: Record<string, string>;
  options: Record<string, unknown>;
  models: ModelConfig[];
  /** True for the built-in simulator, so `/models` can label it. */
  simulated: boolean;
  /** TLS settings of this provider's calls (extra CA, client certificate, server name); absent: the defaults. */
  tls?: ProviderTls;
  /** Time-outs replacing the routing defaults for this provider's calls. */
  timeouts?: ProviderTimeouts;
}

/** A third-party module named in `extensions`: a path (relative to the config file) or a package name. */
export interface ExtensionRef {
  module: string;
  options: Record<string, unknown>;
}

/** Batch execution settings (README "Batches"; config file `batches`). */
export interface BatchesConfig {
  /** Run the batch worker in this process (false: this process only serves the API). */
  worker: boolean;
  /** Items running at once in this process, over all batches. */
  concurrency: number;
  /** Items of one batch running at once in this process. */
  perBatchConcurrency: number;
  /** Fraction taken off the price of batch requests (0.5 = half price). */
  discount: number;
  /** How often an idle worker looks for work. */
  pollIntervalMs: number;
  /** How long a claim on an item lasts without renewal; a crashed process's items are retried after it. */
  leaseMs: number;
  /** `GET /batches/{id}` calls per key and minute before 429. */
  getRateLimitPerMinute: number;
}

/** The agent loop (config file `agent_loop`). */
export interface AgentLoopConfig {
  /** Server-tool calls of one request running at once. */
  toolConcurrency: number;
  /** A tool call running longer is cancelled; the model gets an error result. */
  toolTimeoutMs: number;
}

/** Network policy of server-side fetches (config file `network`). */
export interface NetworkConfig {
  /** CIDR ranges (or single addresses) that server-side fetches may reach although private or loopback. */
  allowPrivate: string[];
}

/** Containers of the bash, shell, files and apply_patch tools (README "Containers"; config file `sandbox`). */
export interface SandboxConfig {
  /** What runs commands: `just-bash` (simulated bash in Bun Workers, the default) or `bwrap` (bubblewrap, Linux). */
  backend: "just-bash" | "bwrap";
  /** Where containers live (`<dir>/<workspace>/<container>/files/`); a shared directory (NFS) for several nodes. */
  dir: string;
  /** Per-container quota on the bytes of its files. */
  maxBytes: number;
  /** Per-container quota on its files and directories. */
  maxFiles: number;
  /** How often expired containers are removed (also once at start). */
  sweepIntervalMs: number;
  /** Commands running at once, all workspaces together (plus one spare for a workspace with none running). */
  workers: number;
  /** Directory markers one `GET /containers/{id}/files` may pass over before it answers (spec operation 6). */
  listScanBound: number;
  /** How long a command may wait for a slot before it is refused (a tool error naming the cap). */
  queueTimeoutMs: number;
  /** `bwrap` unusable on the host: false is a start-up error, true falls back to just-bash. */
  allowFallback: boolean;
  /** The bubblewrap executable. */
  bwrapPath: string;
  /** bwrap: the processes (threads) one command may have at once. */
  maxProcesses: number;
  /** bwrap: the first of the uids slots run as (one per slot). */
  firstUid: number;
}

/** Caps on operators' guardrail patterns (config file `guardrails`); absent fields take core/guardrails/pattern/caps.ts defaults. */
export interface GuardrailsConfig {
  /** Instructions one pattern's compiled program may have (each may take a step per character scanned). */
  patternMaxInstructions?: number;
  /** Steps all patterns together may take over one request, on each side (prompt, answer). */
  scanBudgetSteps?: number;
}

export interface GatewayConfig {
  host: string;
  port: number;
  databaseUrl: string;
  redisUrl: string | undefined;
  /**
   * How long start-up waits for an unreachable database or Redis before it exits (env `STORE_WAIT_SECONDS`; README
   * "Operations: store outages"). Optional so hand-built configs need not name it (default 180 s).
   */
  storeWaitMs?: number;
  logLevel: string;
  adminKey: string | undefined;
  /** GATEWAY_SECRET_KEY (64 hex characters): encrypts BYOK provider keys at rest; absent, `POST /byok` is refused. */
  secretKey?: string | undefined;
  /** Request bodies above this many bytes get 413. */
  bodyLimitBytes: number;
  /** Seconds an idle connection is kept (Bun's default of 10 s would cut slow streams). */
  idleTimeoutSeconds: number;
  /** Interval of SSE keep-alive comments while waiting for the upstream. */
  keepAliveMs: number;
  /**
   * A stream whose client takes no bytes for this long is ended, its upstream stopped and its usage settled
   * (core/http/sse.ts). Optional so hand-built configs need not name it (default 30 s).
   */
  streamWriteTimeoutMs?: number;
  /** How long SIGTERM waits for running streams before closing. */
  shutdownGraceMs: number;
  /** Quiet time after which memory is given back to the system (core/ops/idle-trim.ts); 0 = never. */
  idleTrimMs: number;
  /** Reading a request body (core/http/edge-limits.ts has the defaults): total time, grace, minimum rate, nesting. */
  bodyTimeoutMs?: number;
  bodyGraceMs?: number;
  bodyMinBytesPerSecond?: number;
  maxJsonDepth?: number;
  providers: ProviderConfig[];
  extensions: ExtensionRef[];
  /** Per-plugin default options, keyed by plugin id. */
  plugins: Record<string, Record<string, unknown>>;
  /** Server tools' operator settings keyed by tool name without `service:` (`{env}` secrets resolved). */
  tools: Record<string, Record<string, unknown>>;
  /** The agent loop's per-request tool concurrency and per-call time limit. */
  agentLoop: AgentLoopConfig;
  /** Network policy of server-side fetches. */
  network: NetworkConfig;
  /** Directory the config file lives in (extension paths are relative to it). */
  configDir: string;
  /** Timeouts, retries, breaker, stickiness; absent means `DEFAULT_ROUTING` (routing-limits.ts). */
  routing?: RoutingConfig;
  /** Default rate limits and reservation sizing; absent means `DEFAULT_LIMITS` (routing-limits.ts). */
  limits?: LimitsConfig;
  /** `POST /embeddings` bounds; absent means `DEFAULT_EMBEDDINGS` (embeddings.ts). */
  embeddings?: EmbeddingsConfig;
  /** Batch execution; absent means the defaults (`DEFAULT_BATCHES` in load.ts). */
  batches?: BatchesConfig;
  /** Caps on guardrail patterns; absent means the defaults (core/guardrails/pattern/caps.ts). */
  guardrails?: GuardrailsConfig;
  /** Containers and their sandbox; absent means the defaults (`DEFAULT_SANDBOX` in load.ts). */
  sandbox?: SandboxConfig;
  /** Reading PDFs and HTML pages off the event loop; absent means the defaults (`DEFAULT_DOCUMENTS` in documents.ts). */
  documents?: DocumentsConfig;
  /** The response cache; absent means the defaults (`DEFAULT_CACHE` in cache.ts). */
  cache?: CacheConfig;
  /** `GET /metrics`; absent means on and open (`DEFAULT_METRICS`). */
  metrics?: MetricsConfig;
  /** OpenTelemetry export; absent means off (no SDK is loaded). */
  tracing?: TracingConfig;
  /**
   * Idempotent requests: a reply larger than `maxReplyBytes` is not kept for its retries (core/idempotency/). Absent
   * means the default (`DEFAULT_MAX_REPLY_BYTES`, 4 MB).
   */
  idempotency?: { maxReplyBytes: number };
  /** Strict translation mode by default (README "Strict mode"); absent means off. `X-Service-Strict` overrides it. */
  strict?: boolean;
}
