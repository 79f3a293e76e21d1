/**
 * The read-only view of the catalog that plugins get: models, their endpoints, prices, context
 * lengths, and what this process measured of each endpoint (latency, throughput, breaker state). Plain data, built
 * when asked for, never the internal objects (a plugin cannot reach provider credentials through it).
 */
import type { InputModality, OutputModality, Pricing } from "../config/types.ts";
import type { Catalog, Endpoint } from "./catalog.ts";
import { profileOf } from "./profile.ts";
import type { RoutingRuntime } from "./runtime.ts";
import type { Percentiles } from "./stats.ts";

/** One endpoint (a model at a provider), as plugins see it. */
export interface EndpointView {
  readonly model: string;
  readonly provider: string;
  readonly contextLength: number | undefined;
  readonly maxOutputTokens: number | undefined;
  /** USD per token (`request` per call, `image` per generated image). */
  readonly pricing: Readonly<Pricing>;
  /** What the model produces here, when its config says (`["text", "image"]`); undefined when it does not. */
  readonly outputModalities?: readonly OutputModality[];
  /** What the model reads here, when its config says (`["text", "image", "file"]`); undefined when it does not. */
  readonly inputModalities?: readonly InputModality[];
  /** The most messages one request may carry to this endpoint, when its adapter has such a cap. */
  readonly maxMessages?: number;
  /** Seconds to first output, over this process's recent calls; undefined before any. */
  readonly latency: Percentiles | undefined;
  /** Output tokens per second, over this process's recent calls. */
  readonly throughput: Percentiles | undefined;
  /** The endpoint's circuit breaker. */
  readonly health: "closed" | "open" | "half-open";
}

export interface ModelView {
  readonly id: string;
  /** Display name and description from the config, when it gives them. */
  readonly name?: string;
  readonly description?: string;
  /** Quality scores 0–1 per task type from the config (what the router plugins rank by), when it gives them. */
  readonly quality?: Readonly<Record<string, number>>;
  readonly endpoints: readonly EndpointView[];
}

export interface CatalogView {
  models(): readonly ModelView[];
  model(id: string): ModelView | undefined;
}

const views = new WeakMap<Catalog, CatalogView>();

/** The one view of a process's catalog (its methods read the live routing state, so it is built once). */
export function sharedCatalogView(catalog: Catalog, routing: RoutingRuntime): CatalogView {
  let view = views.get(catalog);
  if (!view) views.set(catalog, (view = createCatalogView(catalog, routing)));
  return view;
}

/** Builds the view of one process's catalog and routing state. */
export function createCatalogView(catalog: Catalog, routing: RoutingRuntime): CatalogView {
  const modelView = (id: string, endpoints: readonly Endpoint[]): ModelView => {
    const config = endpoints[0]?.model;
    const view: { -readonly [K in keyof ModelView]: ModelView[K] } = { id, endpoints: endpoints.map((e) => endpointView(e, routing)) };
    if (config?.name !== undefined) view.name = config.name;
    if (config?.description !== undefined) view.description = config.description;
    if (config?.quality !== undefined) view.quality = Object.freeze({ ...config.quality });
    return view;
  };
  return Object.freeze({
    models: () => catalog.list().map((m) => modelView(m.id, m.endpoints)),
    model: (id: string) => {
      const found = catalog.get(id);
      return found ? modelView(found.id, found.endpoints) : undefined;
    },
  });
}

export function endpointView(endpoint: Endpoint, routing: RoutingRuntime): EndpointView {
  const key = profileOf(endpoint).key;
  const outputs = endpoint.model.outputModalities;
  return Object.freeze({
    model: endpoint.model.id,
    provider: endpoint.provider.id,
    contextLength: endpoint.model.contextLength,
    maxOutputTokens: endpoint.model.maxOutputTokens,
    pricing: Object.freeze({ ...endpoint.model.pricing }),
    ...(outputs ? { outputModalities: Object.freeze([...outputs]) } : {}),
    ...(endpoint.model.inputModalities ? { inputModalities: Object.freeze([...endpoint.model.inputModalities]) } : {}),
    ...(endpoint.adapter.maxMessages !== undefined ? { maxMessages: endpoint.adapter.maxMessages } : {}),
    latency: routing.stats.latency(key),
    throughput: routing.stats.throughput(key),
    health: routing.health.stateOf(key),
  });
}
