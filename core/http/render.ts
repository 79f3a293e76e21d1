/**
 * The HTTP edge's one renderer: a pipeline outcome in the client's wire format — JSON, or SSE
 * relayed as it arrives — or a failure as the error envelope, with `X-Generation-Id`; and writes the request log line.
 */
import { toGatewayError } from "../errors.ts";
import type { EncodeContext } from "../formats/format.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { eventsFromResponse } from "../model/replay.ts";
import { streamOutcome, type Outcome } from "../pipeline/outcome.ts";
import { errorResponse, envelopeOf, jsonResponse } from "./envelope.ts";
import { messagesErrorEnvelope } from "../formats/messages/error-envelope.ts";
import { serviceMetadataOf } from "./service-metadata.ts";
import { sseResponse } from "./sse.ts";
import { fillTrailer, settleTrailerAtClose } from "./trailer.ts";
import { logRequest } from "../pipeline/request-log.ts";

/** Waits for the pipeline's outcome and renders it; a failure (also of an encoder) becomes the envelope. */
export async function respond(ctx: RequestContext, running: Promise<Outcome>): Promise<Response> {
  try {
    return render(ctx, await running);
  } catch (thrown) {
    return renderError(ctx, thrown);
  }
}

export function render(ctx: RequestContext, outcome: Outcome): Response {
  // Reply headers a stage set (the response cache's X-Service-Cache) go on a success too.
  const headers = ctx.replyHeaders === undefined ? { "x-generation-id": ctx.generationId } : { ...ctx.replyHeaders, "x-generation-id": ctx.generationId };
  // A client that asked for a stream gets one, even when a plugin answered with a whole response (a cached or
  // combined answer): it is replayed as events. Accounting has settled it already.
  if (outcome.kind === "response" && ctx.request.stream) outcome = streamOutcome(eventsFromResponse(outcome.response));
  if (outcome.kind === "response") {
    outcome.trailer = fillTrailer({}, ctx);
    const encodeCtx: EncodeContext = { request: ctx.request, generationId: ctx.generationId, trailer: outcome.trailer };
    const http = jsonResponse(ctx.format.encode(outcome.response, encodeCtx), 200, headers);
    logRequest(ctx, 200);
    return http;
  }
  settleTrailerAtClose(outcome, ctx);
  const encodeCtx: EncodeContext = { request: ctx.request, generationId: ctx.generationId, trailer: outcome.trailer };
  return sseResponse(ctx.format.stream(outcome.events, encodeCtx), {
    keepAliveMs: ctx.deps.config.keepAliveMs,
    ...(ctx.deps.config.streamWriteTimeoutMs !== undefined ? { writeTimeoutMs: ctx.deps.config.streamWriteTimeoutMs } : {}),
    ...(ctx.format.keepAliveFrame ? { keepAliveFrame: ctx.format.keepAliveFrame } : {}),
    headers,
    onClose: () => logRequest(ctx, 200),
    onUnread: () => outcome.abandon(),
  });
}

export function renderError(ctx: RequestContext, thrown: unknown): Response {
  const error = toGatewayError(thrown);
  if (error.status >= 500 && error.type === "server") ctx.deps.logger.error({ err: error.cause ?? error, id: ctx.generationId }, "request failed");
  ctx.log.error_type = error.type;
  ctx.bill.answeredWith(error.status, error.type);
  const metadata = ctx.metadataOptIn && ctx.principal ? serviceMetadataOf(ctx) : null;
  const envelope = envelopeOf(error, metadata);
  // Messages: every error in Anthropic's shape as well (`type: "error"`, `error.type`).
  const body = ctx.format.id === "messages" ? messagesErrorEnvelope(envelope, error) : envelope;
  const http = errorResponse(error, body, { "x-generation-id": ctx.generationId, ...ctx.replyHeaders });
  logRequest(ctx, error.status, envelope.error.message);
  return http;
}
