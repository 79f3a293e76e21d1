/**
 * Metric and span labels of bounded cardinality: every value comes from a closed set (the configured catalog,
 * the spec's error types, the HTTP routes), never from what a client sent. A model a request named that the catalog
 * does not have (a typo, a request refused by validation) is `other`, so no client can grow the label space.
 */
import { isErrorType } from "../errors.ts";
import { formatRoutes } from "../formats/index.ts";
import type { RequestContext } from "../pipeline/context.ts";

/** Label value when nothing is known (no endpoint served the request, it failed before routing). */
export const NONE = "none";
/** A model name from the request that the catalog does not know. */
export const OTHER = "other";

/** The model of a request: the endpoint that served it, else the requested model if the catalog has it. */
export function modelLabel(ctx: RequestContext): string {
  const served = ctx.served;
  if (served) return served.model.id;
  const asked = ctx.request?.model;
  if (asked === undefined || asked === "") return NONE;
  return ctx.deps.catalog.get(asked) ? asked : OTHER;
}

export function providerLabel(ctx: RequestContext): string {
  return ctx.served?.provider.id ?? NONE;
}

const ROUTE_OF_FORMAT = new Map<string, string>(formatRoutes.map((route) => [route.format.id, route.path]));

/** `/chat/completions`, `/responses`, `/messages` for HTTP requests; `batch` for a batch item. */
export function routeLabel(ctx: RequestContext): string {
  if (ctx.batchId !== undefined) return "batch";
  return ROUTE_OF_FORMAT.get(ctx.format.id) ?? ctx.format.id;
}

/** An error type from the spec's closed list, else `other` (an adapter or plugin may invent one). */
export function errorTypeLabel(type: string | undefined): string {
  if (type === undefined) return NONE;
  return isErrorType(type) || type === "refusal" ? type : OTHER;
}

/** HTTP statuses as strings, made once (a label is a string; `String(n)` per request would allocate). */
const STATUS_TEXT: string[] = Array.from({ length: 600 }, (_, status) => String(status));

export function statusLabel(status: number): string {
  return STATUS_TEXT[status] ?? String(status);
}
