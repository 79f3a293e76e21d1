/** Plugin contract (ARCHITECTURE §4): hooks run at fixed phases of the one pipeline. */
import type { EventStream } from "../model/events.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { ModuleBase } from "./define.ts";
import type { ModuleHelpers } from "./helpers.ts";

/** What a plugin hook sees: the request being served and the helpers; never the whole internal context. */
export interface PluginContext {
  request: CanonicalRequest;
  /** Options for this request: config defaults shallow-merged with the request's plugin entry. */
  options: Record<string, unknown>;
  helpers: ModuleHelpers;
  /** Adds a pipeline stage entry to `service_metadata.pipeline` (shown only when the plugin did something). */
  report(entry: Record<string, unknown>): void;
}

export interface RouteCandidate {
  model: string;
  providerId: string;
}

export interface PluginModule extends ModuleBase {
  /** Lower runs first; ties broken by id. */
  readonly priority?: number;
  /** Whether the plugin runs on every request (true) or only when the request names it (false, default). */
  readonly enabledByDefault?: boolean;
  readonly hooks: {
    /** Rewrite the request before routing. */
    pre?(ctx: PluginContext): void | Promise<void>;
    /** Narrow or order the routing candidates. */
    route?(ctx: PluginContext, candidates: RouteCandidate[]): RouteCandidate[] | Promise<RouteCandidate[]>;
    /** Rewrite the final (non-streamed) response. */
    post?(ctx: PluginContext, response: CanonicalResponse): CanonicalResponse | Promise<CanonicalResponse>;
    /** Transform the event stream. */
    stream?(ctx: PluginContext, events: EventStream): EventStream;
  };
}
