/**
 * TypeBox schema of the JSON config file (`GATEWAY_CONFIG`); compiled once at start-up. A setting's default is
 * written here (`Defaulted`, ./defaults.ts) and nowhere else; load.ts fills it in.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Defaulted } from "./defaults.ts";
import { LimitsFileSchema, RoutingFileSchema } from "./routing-limits.ts";
import { EmbeddingsFileSchema } from "./embeddings.ts";
import { MetricsFileSchema, TracingFileSchema } from "./observability.ts";
import { DocumentsFileSchema } from "./documents.ts";
import { CacheFileSchema } from "./cache.ts";
import { SANDBOX_DEFAULTS } from "../sandbox/settings.ts";
import { ProviderTimeoutsSchema, ProviderTlsSchema } from "./provider-transport.ts";
import { AzureProviderFields } from "./azure-provider.ts";
import { VertexCredentialsSchema, VertexProviderFields, VertexPublisherSchema } from "./vertex-provider.ts";

/** Money and prices may be written as numbers or numeric strings (as providers publish them). */
const Price = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: "^\\s*[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?\\s*$" })]);

const Secret = Type.Union([Type.String(), Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false })]);

/**
 * `credentials` of a cloud provider entry (README "Cloud providers"): Bedrock's AWS access keys, each a secret, or
 * Vertex AI's service-account key or access token (core/config/vertex-provider.ts).
 */
const CloudCredentialsSchema = Type.Union([
  Type.Object({ access_key_id: Secret, secret_access_key: Secret, session_token: Type.Optional(Secret) }, { additionalProperties: false }),
  VertexCredentialsSchema,
]);

const ModelSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    upstream_model: Type.Optional(Type.String({ minLength: 1 })),
    /** Google Vertex AI only: which publisher serves the model (README "Google Vertex AI"). */
    publisher: Type.Optional(VertexPublisherSchema),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    pricing: Type.Optional(
      Type.Object(
        {
          prompt: Price,
          completion: Price,
          cache_read: Type.Optional(Price),
          cache_write: Type.Optional(Price),
          reasoning: Type.Optional(Price),
          request: Type.Optional(Price),
          /** USD per generated image. */
          image: Type.Optional(Price),
        },
        { additionalProperties: false },
      ),
    ),
    context_length: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    supported_parameters: Type.Optional(Type.Array(Type.String())),
    quantization: Type.Optional(Type.String()),
    tiers: Type.Optional(Type.Array(Type.String())),
    data_collection: Type.Optional(Type.Union([Type.Literal("allow"), Type.Literal("deny")])),
    zdr: Type.Optional(Type.Boolean()),
    /** What the model produces: `["text"]`, `["image"]`, `["text", "image"]`; `["embeddings"]` or `["rerank"]`: a retrieval model. */
    output_modalities: Type.Optional(
      Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image"), Type.Literal("embeddings"), Type.Literal("rerank")]), { minItems: 1, uniqueItems: true }),
    ),
    /** An embedding model's most inputs per upstream call; a larger request is split and its answers joined in order. */
    max_batch_size: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * Quality scores 0–1 per task type (`coding`, `reasoning`, `chat`, `creative`, `extraction`, …, `general`) that
     * the router plugins rank models by (README "Routers"); absent types get the routers' defaults.
     */
    quality: Type.Optional(Type.Record(Type.String({ pattern: "^[a-z][a-z_-]*$" }), Type.Number({ minimum: 0, maximum: 1 }))),
    /** What the model reads: `file` means it takes PDFs natively (the file-parser plugin passes them through). */
    input_modalities: Type.Optional(
      Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image"), Type.Literal("file")]), { minItems: 1, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

const ProviderSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: "^[A-Za-z0-9._-]+$" }),
    adapter: Type.String({ minLength: 1 }),
    /** A named variant of the adapter (README "OpenAI-compatible providers"): its base URL, auth and quirks. */
    kind: Type.Optional(Type.String({ minLength: 1 })),
    base_url: Type.Optional(Type.String({ pattern: "^https?://" })),
    api_key: Type.Optional(Secret),
    /** Where a cloud provider serves (an AWS or Azure region; Bedrock derives its default base URL from it), shown by `GET /providers` and the endpoint listings. */
    region: Type.Optional(Type.String({ minLength: 1, pattern: "^[a-z0-9-]+$" })),
    credentials: Type.Optional(CloudCredentialsSchema),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** TLS of a private or mutually authenticated upstream (README "Upstream connections"). */
    tls: Type.Optional(ProviderTlsSchema),
    /** Time-outs of this provider's calls, replacing the `routing` defaults. */
    timeouts: Type.Optional(ProviderTimeoutsSchema),
    /** Optional for an adapter (kind) that discovers the server's models; otherwise at least one. */
    models: Type.Optional(Type.Array(ModelSchema)),
    /** How often the served models are asked again (`GET /models`), for adapters that discover them; 0: only configured models. */
    discovery_interval_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
    // Azure OpenAI only (README "Azure OpenAI"): api_version, api, entra.
    ...AzureProviderFields,
    // Google Vertex AI only (README "Google Vertex AI"): project, location, token_url.
    ...VertexProviderFields,
  },
  { additionalProperties: false },
);

const ExtensionSchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    { module: Type.String({ minLength: 1 }), options: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
    { additionalProperties: false },
  ),
]);

const MIB = 1024 * 1024;

/** The agent loop (README "Server tools"): how many tool calls of one request run at once, and for how long. */
export const AgentLoopFileSchema = Type.Object(
  {
    tool_concurrency: Defaulted(Type.Integer({ minimum: 1, maximum: 64 }), 8),
    tool_timeout_ms: Defaulted(Type.Integer({ minimum: 100, maximum: 600_000 }), 30_000),
  },
  { additionalProperties: false },
);

/** Server-side fetches (web fetch, search engines, image and file URLs): private ranges the operator allows. */
export const NetworkFileSchema = Type.Object(
  { allow_private: Defaulted(Type.Array(Type.String({ minLength: 1 })), []) },
  { additionalProperties: false },
);

/**
 * Batch execution (README "Batches"): concurrency, discount and worker timing. Half price; a lease
 * renewed every third of it, short enough that the claims of a process that is gone are taken over within 15 s,
 * long enough that a renewal is never missed.
 */
export const BatchesFileSchema = Type.Object(
  {
    worker: Defaulted(Type.Boolean(), true),
    concurrency: Defaulted(Type.Integer({ minimum: 1, maximum: 10_000 }), 16),
    per_batch_concurrency: Defaulted(Type.Integer({ minimum: 1, maximum: 10_000 }), 4),
    discount: Defaulted(Type.Number({ minimum: 0, maximum: 1 }), 0.5),
    poll_interval_ms: Defaulted(Type.Integer({ minimum: 10 }), 1_000),
    lease_ms: Defaulted(Type.Integer({ minimum: 100 }), 10_000),
    get_rate_limit_per_minute: Defaulted(Type.Integer({ minimum: 1 }), 600),
  },
  { additionalProperties: false },
);

/**
 * Containers of the bash, shell, files and apply_patch tools (README "Containers"): quotas a model's work fits in,
 * a sweep often enough to free disk soon.
 */
export const SandboxFileSchema = Type.Object(
  {
    backend: Defaulted(Type.Union([Type.Literal("just-bash"), Type.Literal("bwrap")]), "just-bash"),
    dir: Defaulted(Type.String({ minLength: 1 }), "./data/containers"),
    max_bytes: Defaulted(Type.Integer({ minimum: 1 }), 100 * MIB),
    max_files: Defaulted(Type.Integer({ minimum: 1 }), 10_000),
    sweep_interval_ms: Defaulted(Type.Integer({ minimum: 1_000 }), 60_000),
    workers: Defaulted(Type.Integer({ minimum: 1, maximum: 256 }), 4),
    list_scan_bound: Defaulted(Type.Integer({ minimum: 1, maximum: 1_000_000 }), 1_000),
    /** How long a command waits for a free slot before it is refused as a tool error. */
    queue_timeout_ms: Defaulted(Type.Integer({ minimum: 1, maximum: 600_000 }), SANDBOX_DEFAULTS.queueTimeoutMs),
    /** A `bwrap` backend the host cannot run: false is a start-up error, true runs just-bash instead. */
    allow_fallback: Defaulted(Type.Boolean(), SANDBOX_DEFAULTS.allowFallback),
    /** The bubblewrap executable (a name looked up on PATH, or a path). */
    bwrap_path: Defaulted(Type.String({ minLength: 1 }), SANDBOX_DEFAULTS.bwrapPath),
    /** bwrap: the processes (threads) one command may have at once (RLIMIT_NPROC of its slot's uid). */
    max_processes: Defaulted(Type.Integer({ minimum: 8, maximum: 100_000 }), SANDBOX_DEFAULTS.maxProcesses),
    /** bwrap: slot i runs as uid first_uid + i; the range must own nothing and run nothing else on the host. */
    first_uid: Defaulted(Type.Integer({ minimum: 1, maximum: 4_294_967_000 }), SANDBOX_DEFAULTS.firstUid),
  },
  { additionalProperties: false },
);

/** The HTTP server. Body-reading bounds without a value here take core/http/edge-limits.ts's. */
export const ServerFileSchema = Type.Object(
  {
    /** Request bodies above this many bytes get 413. */
    body_limit_bytes: Defaulted(Type.Integer({ minimum: 1024 }), 10 * MIB),
    /** Bun's default of 10 s would cut slow streams. */
    idle_timeout_seconds: Defaulted(Type.Integer({ minimum: 1, maximum: 255 }), 255),
    keep_alive_ms: Defaulted(Type.Integer({ minimum: 100 }), 15_000),
    shutdown_grace_ms: Defaulted(Type.Integer({ minimum: 0 }), 30_000),
    idle_trim_ms: Defaulted(Type.Integer({ minimum: 0 }), 10_000),
    /** Reading a request body (README "Limits of the HTTP edge"): total time, grace, minimum rate, nesting. */
    body_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
    body_grace_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    body_min_bytes_per_second: Type.Optional(Type.Integer({ minimum: 0 })),
    max_json_depth: Type.Optional(Type.Integer({ minimum: 8, maximum: 1024 })),
    /** A client that takes no bytes of its stream for this long is gone in all but name (README "Streams"); it is ended. */
    stream_write_timeout_ms: Defaulted(Type.Integer({ minimum: 100 }), 30_000),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    providers: Type.Optional(Type.Array(ProviderSchema)),
    extensions: Type.Optional(Type.Array(ExtensionSchema)),
    plugins: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    /**
     * Server tools' operator settings, keyed by tool name without `service:` (README "Server tools"), e.g.
     * `{"web_search": {"engine": "searxng", "base_url": "http://127.0.0.1:8888"}}`. Each tool checks its own entry
     * at start-up; `{"env": "NAME"}` values are read from the environment.
     */
    tools: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    agent_loop: Type.Optional(AgentLoopFileSchema),
    /** Idempotent requests (README "Idempotent requests"): the most one reply kept for its retries may hold. */
    idempotency: Type.Optional(
      Type.Object({ max_reply_bytes: Type.Optional(Type.Integer({ minimum: 1024 })) }, { additionalProperties: false }),
    ),
    network: Type.Optional(NetworkFileSchema),
    /**
     * Strict translation mode for every request without an `X-Service-Strict` header (README "Strict mode"): a field
     * an upstream cannot carry is a 422 instead of a warning.
     */
    strict: Type.Optional(Type.Boolean()),
    /** Keep the built-in simulator provider even when other providers are configured. */
    simulator: Type.Optional(Type.Boolean()),
    /** Timeouts, retries, breaker, sticky sessions (README "Routing and limits"). */
    routing: Type.Optional(RoutingFileSchema),
    /** Default rate limits and credit reservation sizing (README "Routing and limits"). */
    limits: Type.Optional(LimitsFileSchema),
    /** `POST /embeddings` bounds (README "Embeddings and rerank"): inputs per request, tokens per input. */
    embeddings: Type.Optional(EmbeddingsFileSchema),
    /** `GET /metrics` (README "Operating the gateway"): `{"token": "…"}` asks scrapers for a bearer token. */
    metrics: Type.Optional(MetricsFileSchema),
    /** OpenTelemetry traces over OTLP/HTTP (README "Operating the gateway"); the env's OTEL_* also turn them on. */
    tracing: Type.Optional(TracingFileSchema),
    batches: Type.Optional(BatchesFileSchema),
    /**
     * What operators' guardrail patterns may cost (README "Caps on heavy work"): instructions of one pattern's
     * program, refused above at `POST`/`PATCH /guardrails` (default 100: a 1 MB prompt in under 1 s), and the steps
     * all patterns may take over one request, on each side (default 100,000,000: about 1 s).
     */
    guardrails: Type.Optional(
      Type.Object(
        {
          pattern_max_instructions: Type.Optional(Type.Integer({ minimum: 2, maximum: 250_000 })),
          scan_budget_steps: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Reading PDFs and HTML pages off the event loop, and the caps on each (README "Caps on heavy work"). */
    documents: Type.Optional(DocumentsFileSchema),
    /** The response cache (README "Response cache"): TTLs, sizes, what a hit costs. */
    cache: Type.Optional(CacheFileSchema),
    sandbox: Type.Optional(SandboxFileSchema),
    server: Type.Optional(ServerFileSchema),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
