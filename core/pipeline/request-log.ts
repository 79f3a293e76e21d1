/** The one log line per request (HTTP or batch item), written when its reply is settled. */
import type { RequestContext } from "./context.ts";

export function logRequest(ctx: RequestContext, status: number): void {
  ctx.deps.logger.info(
    { ...ctx.log, id: ctx.generationId, format: ctx.format.id, status, stream: ctx.request?.stream ?? false, latency_ms: ctx.deps.clock.now() - ctx.startedAt },
    "request",
  );
}
