/** Maps everything the HTTP edge can throw (parse, validation, routing, ours) to the one error envelope. */
import type { Logger } from "pino";
import { GatewayError, isGatewayError } from "../errors.ts";
import { pathOf } from "./url-path.ts";
import { clip } from "./clip.ts";
import { errorResponse } from "./envelope.ts";
import { edgeEnvelope } from "./edge-envelope.ts";
import { unknownRoute } from "./route-hint.ts";

interface ValueErrorLike {
  path?: string;
  message?: string;
  /** The schema that failed; a `const` one is a literal (a message's `role`, a part's `type`). */
  schema?: unknown;
  /** For unions: one error iterator per variant. */
  errors?: Array<Iterable<ValueErrorLike>>;
}

/**
 * A union failure ("Expected union value") hides the real cause in its variants. Descend into the variant whose
 * first error is deepest (the one that matched the shape best), skipping the `null` branch of nullable fields and
 * the variants whose own discriminating literal failed (a `tool` message's branch for a `user` message with a bad
 * `name`: it would blame a missing `tool_call_id`).
 */
export function mostSpecific(error: ValueErrorLike | undefined): ValueErrorLike | undefined {
  if (!error?.errors?.length) return error;
  let best: ValueErrorLike | undefined;
  let bestOfOthers: ValueErrorLike | undefined;
  for (const variant of error.errors) {
    // Only the first few errors: a variant of a large array value could yield one per element, and the literal a
    // value picks its branch by (`role`, `type`) is among a branch's first properties.
    const all = firstOf(variant, 32);
    const first = all[0];
    if (!first || first.message === "Expected null") continue;
    const deeper = (than: ValueErrorLike | undefined) => !than || (first.path ?? "").length > (than.path ?? "").length;
    if (all.some((e) => isOwnLiteral(e, error.path ?? ""))) {
      if (deeper(bestOfOthers)) bestOfOthers = first;
    } else if (deeper(best)) best = first;
  }
  const chosen = best ?? bestOfOthers;
  return chosen ? mostSpecific(chosen) : error;
}

function firstOf<T>(items: Iterable<T>, count: number): T[] {
  const taken: T[] = [];
  for (const item of items) {
    taken.push(item);
    if (taken.length >= count) break;
  }
  return taken;
}

/** An error on a literal field directly under the union's value: that variant is not the one the value meant. */
function isOwnLiteral(e: ValueErrorLike, unionPath: string): boolean {
  const path = e.path ?? "";
  return (e.schema as { const?: unknown } | undefined)?.const !== undefined && path.startsWith(`${unionPath}/`) && !path.slice(unionPath.length + 1).includes("/");
}

/** Known paths and their methods, so a wrong method gets 405 with `Allow` rather than 404. */
export type RouteTable = Map<string, Set<string>>;

/**
 * `generationId`: the id this reply carries (every reply has an `X-Generation-Id`, also those the edge refuses).
 * A 500 gets an error line with its cause on `logger` (the envelope never shows it).
 */
export function edgeError(code: string | number, error: unknown, request: Request, routes: RouteTable, generationId: string, logger?: Logger): Response {
  const edge = toEdgeError(code, error, request, routes);
  if (edge.status >= 500 && (edge.type === "server" || edge.type === "unmapped")) {
    logger?.error({ err: edge.cause ?? edge, id: generationId, method: request.method, path: clip(pathOf(request.url)) }, "request failed");
  }
  return render(edge, generationId, request);
}

function toEdgeError(code: string | number, error: unknown, request: Request, routes: RouteTable): GatewayError {
  if (isGatewayError(error)) return error;
  switch (code) {
    case "PARSE": {
      // Elysia wraps what a parser threw; our own parser's errors (413 for an over-limit chunked body) stand as they are.
      const cause = (error as { cause?: unknown } | null)?.cause;
      return isGatewayError(cause) ? cause : new GatewayError("invalid_request", "Malformed JSON in request body");
    }
    case "VALIDATION":
      return validationError(error);
    case "NOT_FOUND": {
      // Not `new URL()`: it throws on what a client can send (core/http/host.ts refuses it earlier; this stays safe).
      const path = pathOf(request.url).replace(/\/+$/, "") || "/";
      const allowed = matchMethods(routes, path);
      if (allowed) {
        return new GatewayError("invalid_request", `Method ${request.method} is not allowed on ${path}`, {
          status: 405,
          metadata: { allow: [...allowed] },
        });
      }
      return unknownRoute(request, path, routes);
    }
    default:
      return new GatewayError("server", "Internal server error", { cause: error });
  }
}

function validationError(error: unknown): GatewayError {
  return invalidParameters((error as { valueError?: ValueErrorLike }).valueError);
}

/** The 400 for a schema failure: its most specific error, naming the field (`metadata.param`) when there is one. */
export function invalidParameters(error: ValueErrorLike | undefined): GatewayError {
  const first = mostSpecific(error);
  const field = first?.path ? first.path.slice(1).replaceAll("/", ".") : undefined;
  const detail = first?.message ?? "does not match the schema";
  const message = field ? `Invalid request parameters: ${field}: ${detail}` : `Invalid request parameters: ${detail}`;
  return new GatewayError("invalid_request", message, field ? { metadata: { param: field } } : {});
}

function matchMethods(routes: RouteTable, path: string): Set<string> | undefined {
  const exact = routes.get(path);
  if (exact) return exact;
  for (const [pattern, methods] of routes) {
    if (!pattern.includes(":")) continue;
    const re = new RegExp(`^${pattern.replace(/:[^/]+/g, "[^/]+")}$`);
    if (re.test(path)) return methods;
  }
  return undefined;
}

function render(error: GatewayError, generationId: string, request: Request): Response {
  const headers: Record<string, string> = { "x-generation-id": generationId };
  if (error.status === 405) headers.allow = [...((error.metadata?.allow as string[]) ?? [])].join(", ");
  // A body we stopped reading (too slow, too big, too deep) leaves the rest of it on the connection: close it rather
  // than let the client go on holding it.
  if (error.status === 408 || error.status === 413 || error.metadata?.max_depth !== undefined) headers.connection = "close";
  return errorResponse(error, edgeEnvelope(request, error), headers);
}
