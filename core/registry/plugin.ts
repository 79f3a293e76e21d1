/**
 * Plugin contract. The general hook is `around(ctx, turn)`: it wraps ONE model turn and may call
 * `turn` zero, one or several times, each time with a request of its choice, and return any outcome. `route` narrows
 * or orders a turn's candidates. `pre`, `post` and `stream` are the request-level convenience forms: they run once
 * per request, around everything the request does (pre: rewrite the request; post: rewrite the final response;
 * stream: transform the final event stream).
 *
 * Plugins are composed by priority, then id: the first is the outermost layer (its `pre` runs first, and its
 * `around` sees the turn as every later plugin's `around` shaped it).
 */
import type { EventStream, StreamEvent } from "../model/events.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { Outcome } from "../pipeline/outcome.ts";
import type { CatalogView, EndpointView } from "../routing/catalog-view.ts";
import type { ModuleBase } from "./define.ts";
import type { FetchFunction, ModuleHelpers } from "./helpers.ts";

/** What a plugin hook sees: the request it is serving and what it may use; never the internal context. */
export interface PluginContext {
  request: CanonicalRequest;
  /** Options for this request: config defaults shallow-merged with the request's plugin entry. */
  readonly options: Record<string, unknown>;
  /**
   * True when the request or the operator's config (`enabled: true`) turned the plugin on; false when it runs only
   * because it is on by default (`enabledByDefault`), so it can act only where its default applies.
   */
  readonly explicit: boolean;
  /** This plugin's scratch space for the whole request, shared by all its hooks (e.g. what `pre` found for `post`). */
  readonly state: Map<string, unknown>;
  /**
   * The calling workspace's id ("" for a request without a principal): partition anything a plugin keeps across
   * requests (in `helpers.kv`) by it, so one workspace's requests never steer or read another's.
   */
  readonly workspace: string;
  readonly helpers: ModuleHelpers;
  /**
   * Outbound HTTP under the gateway's network policy (public addresses only, unless `network.allow_private`): for
   * URLs a request names. `helpers.fetch` is the same function.
   */
  readonly fetch: FetchFunction;
  /**
   * The gateway's upstream client, outside the network policy: only for a URL the operator configured (an engine's
   * `base_url` in the plugin's config options), never one a request or a model names.
   */
  readonly upstreamFetch: FetchFunction;
  /** Aborted when the client goes away (or the batch worker stops): stop any work of your own then. */
  readonly signal: AbortSignal;
  /** Models, endpoints, prices, context lengths and measured latency and throughput; read-only. */
  readonly catalog: CatalogView;
  /** Adds an entry to `service_metadata.pipeline` (data about what the plugin did; add one only when it acted). */
  report(entry: Record<string, unknown>): void;
  /**
   * Bills priced work the plugin did for this request (USD), with the request's cost. On a key with a credit limit
   * the amount is held first, like a model turn: rejects with a 402 GatewayError when it does not fit.
   */
  charge(amount: number, description: string): Promise<void>;
  /**
   * Reserves, now, the worst case of a later turn of the request's own on `request.model` (a plugin that moves the
   * request's answer to another model than the one the request reserved for, before it runs sub-requests): that turn
   * then runs on this reservation, so it cannot be refused for credit after the plugin's other calls spent. On a key
   * without a credit limit or budget it does nothing. `request.max_tokens` may be capped, as the request's own is when
   * nothing bounds the output. Rejects with a 402 GatewayError when the limit cannot cover it.
   */
  reserveTurn(request: CanonicalRequest): Promise<void>;
  /** Routes `request` as the next turn would (the candidates, first choice first), without calling anything. */
  route(request: CanonicalRequest): Promise<RouteDecision>;
  /**
   * Runs `request` to a whole response as a request of its own inside this one (a judge's verdict, a panel's
   * draft): its `service:*` tools run in an agent loop of their own, each of its turns passes the `around` hooks of
   * the plugins after this one, and every turn and tool charge is billed with this request (credit holds included).
   * Rejects with a GatewayError as a turn does; `options.signal` cuts it short (a time cap). With `options.onEvent`
   * it runs streamed and hands over each canonical event as it arrives (a panel's draft shown live); the promise
   * still resolves with the whole response.
   */
  complete(request: CanonicalRequest, options?: { signal?: AbortSignal; onEvent?: (event: StreamEvent) => void }): Promise<CanonicalResponse>;
  /**
   * Runs one call of the server tool `type` (`service:web_search`) for this request, exactly as the agent loop
   * would: the request-side `parameters` checked (a 400 naming the field), the operator's settings, the network
   * policy, the time limit and the tool's own charges. Resolves with the tool's result; rejects with its error.
   */
  runTool(type: string, args: Record<string, unknown>, parameters?: Record<string, unknown>): Promise<unknown>;
}

/** A turn's routing decision; pass it back to `turn` to call exactly these endpoints. */
export interface RouteDecision {
  /** The endpoints in the order they will be tried. */
  readonly endpoints: readonly EndpointView[];
}

export interface TurnOptions {
  /** Reuse this decision instead of routing again (e.g. after rewriting the request for the chosen endpoint). */
  route?: RouteDecision;
}

/**
 * One model turn: routes (or reuses `options.route`), calls with fallbacks, translates and meters; resolves with a
 * response or a live stream (per `request.stream`), or rejects with a GatewayError. Re-entrant: call it as often as
 * needed, concurrently too; each call is billed. A stream you do not return is abandoned for you when the request
 * settles (its upstream stopped); call `abandon()` on it yourself to stop it at once.
 */
export type Turn = (request: CanonicalRequest, options?: TurnOptions) => Promise<Outcome>;

export interface RouteCandidate {
  model: string;
  providerId: string;
}

export interface PluginHooks {
  /** Wraps each model turn. */
  around?(ctx: PluginContext, turn: Turn): Promise<Outcome>;
  /** Rewrite the request once, before anything else runs for it. */
  pre?(ctx: PluginContext): void | Promise<void>;
  /** Narrow or order the routing candidates of each turn. */
  route?(ctx: PluginContext, candidates: RouteCandidate[]): RouteCandidate[] | Promise<RouteCandidate[]>;
  /** Rewrite the final (non-streamed) response. */
  post?(ctx: PluginContext, response: CanonicalResponse): CanonicalResponse | Promise<CanonicalResponse>;
  /** Transform the final event stream. */
  stream?(ctx: PluginContext, events: EventStream): EventStream;
}

/** The hook names the loader accepts. */
export const PLUGIN_HOOKS: readonly (keyof PluginHooks)[] = ["around", "pre", "route", "post", "stream"];

export interface PluginModule extends ModuleBase {
  /** Lower runs first (outermost); ties broken by id. */
  readonly priority?: number;
  /** Whether the plugin runs on every request (true) or only when the request names it (false, default). */
  readonly enabledByDefault?: boolean;
  /**
   * For a plugin on only by default (the request did not name it, the operator did not turn it on): whether this
   * request can concern it at all. False leaves it out of the request entirely (no hook, no context, no cost), so a
   * default-on plugin costs the requests it never acts on nothing but this test. Keep it cheap.
   */
  appliesTo?(request: CanonicalRequest, catalog: CatalogView): boolean;
  /**
   * Model ids the plugin answers to (a router's `service/auto`): a request whose `model` is one of them runs the
   * plugin (unless its entry says `enabled: false`), and its credit is reserved against the dearest model of the
   * catalog. They are not catalog models: the plugin must replace the model (in `pre`) before the request routes.
   */
  readonly models?: readonly string[];
  readonly hooks: PluginHooks;
}
