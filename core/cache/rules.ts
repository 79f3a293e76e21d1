/**
 * What the response cache keeps (README "Response cache"). A request whose answer depends on more than its text is
 * not cached unless forced (`X-Service-Cache: force`): one that runs server tools (declared, or through a plugin that
 * runs them), asks for several choices (`n` > 1) or samples hotter than `cache.max_temperature`. An answer is kept
 * only when it ended well: no error, not cut, not paused half-way or out of context.
 */
import type { CacheConfig } from "../config/cache.ts";
import type { CanonicalResponse, FinishReason } from "../model/response.ts";
import type { RequestContext } from "../pipeline/context.ts";

/** Why the rules skip a request (`service_metadata.cache.skipped`), or undefined when they do not. */
export function skipReason(ctx: RequestContext, settings: CacheConfig): string | undefined {
  const request = ctx.request;
  if (request.tools.some((tool) => tool.kind === "server") || runsServerToolsByPlugin(ctx)) return "server_tools";
  const n = request.original.n;
  if (typeof n === "number" && n > 1) return "n";
  const temperature = request.sampling.temperature;
  if (temperature !== undefined && temperature > settings.maxTemperature) return "temperature";
  return undefined;
}

/** A plugin that needs a server tool (web, web-fetch), named by the request or turned on for everyone by the operator. */
function runsServerToolsByPlugin(ctx: RequestContext): boolean {
  const { registry, config } = ctx.deps;
  const named = new Map(ctx.request.plugins.map((entry) => [entry.id, entry.enabled !== false]));
  for (const plugin of registry.orderedPlugins()) {
    if (!plugin.requires?.tools?.length) continue;
    const on = named.get(plugin.id) ?? (config.plugins[plugin.id]?.enabled === true || plugin.enabledByDefault === true);
    if (on) return true;
  }
  return false;
}

const UNFINISHED: ReadonlySet<FinishReason> = new Set(["error", "pause", "context_window"]);

/** Whether an answer may be kept: it carries no error and ended on its own (not failed, paused or cut). */
export function keepable(response: CanonicalResponse): boolean {
  return response.error === undefined && !UNFINISHED.has(response.finish.reason);
}
