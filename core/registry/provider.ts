/** Provider adapter contract: canonical request in, canonical response or events out. */
import type { GeneratedImage, ImageCall } from "../images/types.ts";
import type { EmbeddingCall, EmbeddingResult, RerankCall, RerankResult } from "../retrieval/types.ts";
import type { EventStream } from "../model/events.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { Warning } from "../model/warnings.ts";
import type { ModuleBase } from "./define.ts";
import type { ModuleHelpers } from "./helpers.ts";

/** One configured upstream for one model: what an adapter needs to make the call. */
export interface UpstreamTarget {
  providerId: string;
  /** API root including its version segment; the adapter appends the operation path. */
  baseUrl: string;
  apiKey: string | undefined;
  /** The model name the upstream knows. */
  upstreamModel: string;
  /** Extra headers from the provider config. */
  headers: Record<string, string>;
  /** A cloud provider's region (config `region`, e.g. an AWS region). */
  region?: string;
  /** A cloud provider's credentials (config `credentials`), secrets already read from the environment. */
  credentials?: Readonly<Record<string, string>>;
  /** Adapter options from the provider config, already validated against `optionsSchema`. */
  options: Record<string, unknown>;
}

export interface ProviderCall {
  /** The request to translate: read it, never write it (what could not be carried goes to `warn`). */
  request: CanonicalRequest;
  target: UpstreamTarget;
  /**
   * The one way an adapter reports what it could not carry or had to approximate, while building the upstream body
   * (a dropped field) or while reading the reply (a part it cannot relay): the client sees the warnings of the
   * attempt that served it (`warnings`, `service_metadata.warnings`), and in strict mode a warning reported before
   * the upstream is called refuses the attempt with a 422 instead (README "Strict mode"). An `unsupported_field`
   * warning for a field already reported is dropped, so fifty cache marks make one warning. The provider kit's
   * `translate(call, build)` reports whatever a body builder recorded on the request it was given.
   */
  warn(warning: Warning): void;
  /** Aborted when the client disconnects or the deadline passes; adapters pass it to fetch. */
  signal: AbortSignal;
  helpers: ModuleHelpers;
  /** Called once with the exact body sent upstream (for `debug.echo_upstream_body`). */
  onUpstreamBody?: (body: unknown) => void;
}

export interface ProviderAdapter extends ModuleBase {
  /**
   * Optional: the request parameters this adapter sends upstream, named as the catalog's `supported_parameters`
   * names them (`temperature`, `tools`, `reasoning`, … see core/routing/parameters.ts). The model listings show
   * them (narrowed by a model entry's own `supported_parameters`); an adapter that leaves this out lists only what
   * the config declares.
   */
  readonly supportedParameters?: readonly string[];
  /** Optional: the most messages one request may carry upstream (context-compression keeps requests under it). */
  readonly maxMessages?: number;
  /**
   * Optional: checks, once at start-up, the provider entry's fields this adapter reads (a cloud's `region`,
   * `credentials`) and returns the target its calls will carry — completed where the adapter knows better than the
   * config, e.g. the base URL a cloud derives from its region. A problem is thrown as an Error whose message starts
   * with the entry's field and a colon (`region: required …`); the gateway refuses to start with it. Without this
   * hook, or when it leaves the base URL empty, a provider entry needs `base_url`.
   */
  prepareTarget?(target: UpstreamTarget): UpstreamTarget;
  /** Non-streaming call. Throws GatewayError (status and `retryable` set) when the upstream fails. */
  generate(call: ProviderCall): Promise<CanonicalResponse>;
  /**
   * Streaming call. Resolves once the upstream accepted the request (status known), so failures before the
   * first byte throw here and routing may still fall back; failures after that arrive as an `error` event.
   */
  stream(call: ProviderCall): Promise<EventStream>;
  /**
   * Optional: generates one image (an images API such as OpenAI's `POST /images/generations`). Used by
   * `service:image_generation` for models whose config lists `image` in `output_modalities`; without it the gateway
   * asks `generate` for image output instead (`modalities: ["image", "text"]`). Throws GatewayError like `generate`.
   */
  images?(call: ImageCall): Promise<GeneratedImage[]>;
  /**
   * Optional: embeds texts (or token ids), one vector per input in input order (README "Embeddings and rerank"). Used
   * for models whose config lists `embeddings` in `output_modalities`; a model entry like that on an adapter without
   * it stops start-up. The gateway splits a request larger than the model's `max_batch_size` into several calls.
   * Throws GatewayError like `generate`.
   */
  embed?(call: EmbeddingCall): Promise<EmbeddingResult>;
  /** Optional: scores documents against a query, best first; for models whose config lists `rerank`. */
  rerank?(call: RerankCall): Promise<RerankResult>;
  /**
   * Optional: lists the models the upstream serves (e.g. `GET {base_url}/models`), for providers whose config leaves
   * them out (local model servers). Called at start-up and every `discovery_interval_seconds`; each model it returns
   * is served as `<provider id>/<id>` with the provider's pricing defaults (zero). Throws (or rejects) when the
   * server cannot be asked: the catalog then keeps what it had and asks again later.
   */
  discoverModels?(call: DiscoveryCall): Promise<DiscoveredModel[]>;
  /**
   * Optional: named variants of this adapter (config `"kind"`, e.g. `"adapter": "openai", "kind": "deepseek"`), each
   * a family of upstreams with its own default base URL, authentication and quirks. Resolved once per provider at
   * start-up: the kind's functions replace the adapter's own for that provider, so no request looks a kind up.
   */
  readonly kinds?: Readonly<Record<string, ProviderKind>>;
}

/** One named variant of an adapter: what it sets replaces the adapter's own; what it leaves out stays the adapter's. */
export interface ProviderKind extends Partial<Pick<ProviderAdapter, "generate" | "stream" | "images" | "embed" | "rerank" | "discoverModels" | "supportedParameters" | "maxMessages">> {
  readonly description: string;
  /** The API root a provider of this kind may leave out of its config entry (`base_url`). */
  readonly defaultBaseUrl?: string;
  /** True when the upstream cannot be called without a key: a provider entry of this kind without `api_key` stops start-up. */
  readonly requiresKey?: boolean;
}

/** What `discoverModels` gets: the provider's target without a model, a signal bounding the call, and the helpers. */
export interface DiscoveryCall {
  target: Omit<UpstreamTarget, "upstreamModel">;
  signal: AbortSignal;
  helpers: ModuleHelpers;
}

/** One model an upstream says it serves. */
export interface DiscoveredModel {
  /** The name the upstream knows it by (the catalog serves it as `<provider id>/<id>`). */
  id: string;
  /** Its context window, when the server reports one (vLLM's `max_model_len`). */
  contextLength?: number;
  /** The most output tokens it may produce, when the server reports it. */
  maxOutputTokens?: number;
}
