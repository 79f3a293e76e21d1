/** Maps everything the HTTP edge can throw (parse, validation, routing, ours) to the one error envelope. */
import { GatewayError, isGatewayError } from "../errors.ts";
import { envelopeOf, errorResponse } from "./envelope.ts";

interface ValueErrorLike {
  path?: string;
  message?: string;
  /** For unions: one error iterator per variant. */
  errors?: Array<Iterable<ValueErrorLike>>;
}

/**
 * A union failure ("Expected union value") hides the real cause in its variants. Descend into the variant whose
 * first error is deepest (the one that matched the shape best), skipping the `null` branch of nullable fields.
 */
export function mostSpecific(error: ValueErrorLike | undefined): ValueErrorLike | undefined {
  if (!error?.errors?.length) return error;
  let best: ValueErrorLike | undefined;
  for (const variant of error.errors) {
    const first = variant[Symbol.iterator]().next().value as ValueErrorLike | undefined;
    if (!first || first.message === "Expected null") continue;
    if (!best || (first.path ?? "").length > (best.path ?? "").length) best = first;
  }
  return best ? mostSpecific(best) : error;
}

/** Known paths and their methods, so a wrong method gets 405 with `Allow` rather than 404. */
export type RouteTable = Map<string, Set<string>>;

/** `generationId`: the id this reply carries (every reply has an `X-Generation-Id`, also those the edge refuses). */
export function edgeError(code: string | number, error: unknown, request: Request, routes: RouteTable, generationId: string): Response {
  return render(toEdgeError(code, error, request, routes), generationId);
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
      const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
      const allowed = matchMethods(routes, path);
      if (allowed) {
        return new GatewayError("invalid_request", `Method ${request.method} is not allowed on ${path}`, {
          status: 405,
          metadata: { allow: [...allowed] },
        });
      }
      return new GatewayError("not_found", `No route for ${request.method} ${path}`);
    }
    default:
      return new GatewayError("server", "Internal server error", { cause: error });
  }
}

function validationError(error: unknown): GatewayError {
  const first = mostSpecific((error as { valueError?: ValueErrorLike }).valueError);
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

function render(error: GatewayError, generationId: string): Response {
  const headers: Record<string, string> = { "x-generation-id": generationId };
  if (error.status === 405) headers.allow = [...((error.metadata?.allow as string[]) ?? [])].join(", ");
  return errorResponse(error, envelopeOf(error), headers);
}
