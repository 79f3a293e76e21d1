/**
 * The one log line per answer (issue 16 item 18). A request that reaches the pipeline (HTTP or batch item) gets its
 * line from the pipeline when its reply is settled, with what only the pipeline knows (key, model, tokens, cost);
 * every other answer — the edge's own refusals (401, 400, 404, 405, 408, 413, a bad Host), 500s, and the other
 * routes — gets one from the front door (core/http/front-door.ts) once its response exists.
 */
import type { Logger } from "pino";
import { clip, ECHO_MAX_CHARS } from "../http/clip.ts";
import { pathOf } from "../http/url-path.ts";
import { authenticatedKeyHash } from "../http/auth-first.ts";
import type { RequestContext } from "./context.ts";

export function logRequest(ctx: RequestContext, status: number): void {
  ctx.deps.logger.info(
    { ...clipped(ctx.log), id: ctx.generationId, format: ctx.format.id, status, stream: ctx.request?.stream ?? false, latency_ms: ctx.deps.clock.now() - ctx.startedAt },
    "request",
  );
  // Metrics and traces of the settled request (core/observe/).
  ctx.deps.observer?.request(ctx, status);
}

/** Requests whose line the pipeline writes itself (possibly later, when a stream ends): the front door skips them. */
const pipelineLogged = new WeakSet<Request>();

/** Called by an inference route as it hands the request to the pipeline, whose renderer then logs it. */
export function pipelineLogs(request: Request): void {
  pipelineLogged.add(request);
}

/** The error type of each request the edge refused (core/http/edge-envelope.ts notes it), so its line says why. */
const refusals = new WeakMap<Request, string>();

export function noteRefusal(request: Request, errorType: string): void {
  refusals.set(request, errorType);
}

/**
 * The line of an answer the pipeline did not log; `startedAt` in ms (Date.now()). A refusal names its `error_type`
 * and, when the key was good but the request was not (a body the schema refuses, an unknown preset), the key's hash
 * prefix as the pipeline's lines do: an operator finds a key's refused requests beside its served ones (issue 17
 * item 14). Never the key itself nor the query string.
 */
export function logEdgeAnswer(logger: Logger, request: Request, response: Response, startedAt: number): void {
  if (pipelineLogged.has(request)) return;
  logger.info(
    {
      id: response.headers.get("x-generation-id") ?? undefined,
      key: authenticatedKeyHash(request.headers)?.slice(0, 8),
      method: request.method,
      path: clip(pathOf(request.url)),
      status: response.status,
      error_type: refusals.get(request),
      latency_ms: Date.now() - startedAt,
    },
    "request",
  );
}

/** The context's log fields with client-supplied strings (a model name) clipped; the same object when all are short. */
function clipped(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "string" && value.length > ECHO_MAX_CHARS) (copy ??= { ...fields })[key] = clip(value);
  }
  return copy ?? fields;
}
