/**
 * Tracing as the rest of the gateway sees it: `startTracing` loads the SDK (only when configured) and returns
 * `finish`, which builds and queues one request's spans after the response went out (setImmediate: the reply is
 * never held for them), and `shutdown`, which flushes for at most two seconds.
 */
import type { Logger } from "pino";
import type { TracingConfig } from "../../config/observability.ts";
import type { RequestContext } from "../../pipeline/context.ts";
import { takeRecords } from "./records.ts";
import type { ProcessorCounters } from "./span-queue.ts";

export interface Tracing {
  finish(ctx: RequestContext, status: number, endedAt: number): void;
  shutdown(): Promise<void>;
}

export async function startTracing(config: TracingConfig, counters: ProcessorCounters, logger: Logger, version: string): Promise<Tracing> {
  const [{ startSdk }, { emitRequestTrace }, { abandonPartialSpans }] = await Promise.all([import("./sdk.ts"), import("./request-trace.ts"), import("./otlp-proto.ts")]);
  const sdk = startSdk(config, counters, version);
  logger.info({ url: config.url, sample_ratio: config.sampleRatio }, "tracing: exporting spans over OTLP/HTTP");
  // Requests that ended since the last turn of the event loop, traced together once the replies went out.
  let pending: Array<{ ctx: RequestContext; status: number; endedAt: number }> = [];
  const drain = () => {
    const batch = pending;
    pending = [];
    for (const { ctx, status, endedAt } of batch) {
      try {
        emitRequestTrace(sdk, ctx, status, endedAt, takeRecords(ctx));
      } catch (err) {
        // A bug in span building must never reach a request; it costs that request its trace.
        abandonPartialSpans();
        logger.warn({ err, id: ctx.generationId }, "tracing: a request's spans could not be built");
      }
    }
  };
  return {
    finish(ctx, status, endedAt) {
      if (pending.push({ ctx, status, endedAt }) === 1) setImmediate(drain);
    },
    async shutdown() {
      drain();
      await sdk.shutdown();
    },
  };
}
