/**
 * format-out (outermost stage): renders the outcome in the client's wire format — JSON, or SSE relayed as it
 * arrives — or the error envelope, and writes the one request log line.
 */
import { errorResponse, envelopeOf, jsonResponse } from "../../http/envelope.ts";
import { serviceMetadataOf } from "../../http/service-metadata.ts";
import { sseResponse } from "../../http/sse.ts";
import { toGatewayError } from "../../errors.ts";
import type { EncodeContext } from "../../formats/format.ts";
import type { RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";

export const formatOutStage: Stage = {
  name: "format-out",
  async run(ctx, next) {
    try {
      await next();
      render(ctx);
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.status >= 500 && error.type === "server") ctx.deps.logger.error({ err: error.cause ?? error, id: ctx.generationId }, "request failed");
      ctx.log.error_type = error.type;
      const metadata = ctx.metadataOptIn && ctx.principal ? serviceMetadataOf(ctx) : null;
      ctx.http = errorResponse(error, envelopeOf(error, metadata), { "x-generation-id": ctx.generationId, ...ctx.replyHeaders });
      logRequest(ctx, error.status);
    }
  },
};

/** Encodes the outcome; a failure here (an encoder bug) still becomes an envelope with the generation id. */
function render(ctx: RequestContext): void {
  const outcome = ctx.outcome;
  if (!outcome) throw new Error("pipeline finished without an outcome");
  const encodeCtx: EncodeContext = {
    request: ctx.request,
    generationId: ctx.generationId,
    ...(ctx.metadataOptIn ? { serviceMetadata: () => serviceMetadataOf(ctx) } : {}),
  };
  const headers = { "x-generation-id": ctx.generationId };
  if (outcome.kind === "response") {
    ctx.http = jsonResponse(ctx.format.encode(outcome.response, encodeCtx), 200, headers);
    logRequest(ctx, 200);
    return;
  }
  ctx.http = sseResponse(ctx.format.stream(outcome.events, encodeCtx), {
    keepAliveMs: ctx.deps.config.keepAliveMs,
    ...(ctx.format.keepAliveFrame ? { keepAliveFrame: ctx.format.keepAliveFrame } : {}),
    headers,
    onClose: () => logRequest(ctx, 200),
  });
}

function logRequest(ctx: RequestContext, status: number): void {
  ctx.deps.logger.info(
    { ...ctx.log, id: ctx.generationId, format: ctx.format.id, status, stream: ctx.request?.stream ?? false, latency_ms: ctx.deps.clock.now() - ctx.startedAt },
    "request",
  );
}
