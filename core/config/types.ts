/** The gateway's configuration after env and the JSON file are read and validated (README "Configuration"). */
import type { LimitsConfig, RoutingConfig } from "./routing-limits.ts";

/** USD per token (per request for `request`). */
export interface Pricing {
  prompt: number;
  completion: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  request?: number;
}

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
}

export interface ProviderConfig {
  id: string;
  adapter: string;
  baseUrl: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  options: Record<string, unknown>;
  models: ModelConfig[];
  /** True for the built-in simulator, so `/models` can label it. */
  simulated: boolean;
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

export interface GatewayConfig {
  host: string;
  port: number;
  databaseUrl: string;
  redisUrl: string | undefined;
  logLevel: string;
  adminKey: string | undefined;
  /** Request bodies above this many bytes get 413. */
  bodyLimitBytes: number;
  /** Seconds an idle connection is kept (Bun's default of 10 s would cut slow streams). */
  idleTimeoutSeconds: number;
  /** Interval of SSE keep-alive comments while waiting for the upstream. */
  keepAliveMs: number;
  /** How long SIGTERM waits for running streams before closing. */
  shutdownGraceMs: number;
  /** Quiet time after which memory is given back to the system (core/ops/idle-trim.ts); 0 = never. */
  idleTrimMs: number;
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
  /** Batch execution; absent means the defaults (`DEFAULT_BATCHES` in load.ts). */
  batches?: BatchesConfig;
}
