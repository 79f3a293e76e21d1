/**
 * The one log line per answer. A request that reaches the pipeline (HTTP or batch item) gets its
 * line from the pipeline when its reply is settled, with what only the pipeline knows (key, model, tokens, cost);
 * every other answer — the edge's own refusals (401, 400, 404, 405, 408, 413, a bad Host), 500s, and the other
 * routes — gets one from the front door (core/http/front-door.ts) once its response exists. An error answer's line
 * says why: its `error_type` and `error_message`, the message the client got, clipped and with anything shaped like
 * a credential masked.
 */
import type { Logger } from "pino";
import { clip, ECHO_MAX_CHARS } from "../http/clip.ts";
import { pathOf } from "../http/url-path.ts";
import { edgeRecordIfAny, edgeRecordOf } from "../http/edge-record.ts";
import type { RequestContext } from "./context.ts";

/** Characters of an error message a request line keeps: enough to say why, not a whole echoed body. */
export const REASON_MAX_CHARS = 200;

/** Credentials an error message might repeat: our keys, common provider keys, bearer tokens. */
const CREDENTIAL = /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|\bAIza[0-9A-Za-z_-]{20,}|\bBearer\s+\S+/g;

/** An error message as a request line carries it: credentials masked, then clipped. */
export function reasonOf(message: string): string {
  return clip(message.replace(CREDENTIAL, "[redacted]"), REASON_MAX_CHARS);
}

/** `reason`: the error message the client got, for an error answer (see `reasonOf`). */
export function logRequest(ctx: RequestContext, status: number, reason?: string): void {
  const line: Record<string, unknown> = { ...clipped(ctx.log), id: ctx.generationId, format: ctx.format.id, status, stream: ctx.request?.stream ?? false, latency_ms: ctx.deps.clock.now() - ctx.startedAt };
  if (reason !== undefined && status >= 400) line.error_message = reasonOf(reason);
  ctx.deps.logger.info(line, "request");
  // Metrics and traces of the settled request (core/observe/).
  ctx.deps.observer?.request(ctx, status);
}

/**
 * Called by an inference route as it hands the request to the pipeline, whose renderer then logs it (possibly later,
 * when a stream ends): the front door skips it.
 */
export function pipelineLogs(request: Request): void {
  edgeRecordOf(request.headers).pipelineLogs = true;
}

/** Notes the error the edge refused `request` with (core/http/edge-envelope.ts), so its line says why; `message`: the one the client got in the envelope. */
export function noteRefusal(request: Request, errorType: string, message: string): void {
  edgeRecordOf(request.headers).refusal = { type: errorType, message };
}

/**
 * The line of an answer the pipeline did not log; `startedAt` in ms (Date.now()). A refusal names its `error_type`,
 * its `error_message` and, when the key was good but the request was not (a body the schema refuses, an unknown preset), the key's hash
 * prefix as the pipeline's lines do: an operator finds a key's refused requests beside its served ones.
 * Never the key itself nor the query string.
 */
export function logEdgeAnswer(logger: Logger, request: Request, response: Response, startedAt: number): void {
  const record = edgeRecordIfAny(request.headers);
  if (record?.pipelineLogs) return;
  const refusal = record?.refusal;
  logger.info(
    {
      id: response.headers.get("x-generation-id") ?? undefined,
      key: record?.keyHash?.slice(0, 8),
      method: request.method,
      path: clip(pathOf(request.url)),
      status: response.status,
      error_type: refusal?.type,
      error_message: refusal === undefined ? undefined : reasonOf(refusal.message),
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
