/**
 * The operator surface of one gateway (README "Operating the gateway"): its metrics (unless `metrics.enabled` is
 * false), its tracing (only when an OTLP endpoint is configured) and the observer the pipeline calls. Built by
 * bootstrap before the app, stopped after the server.
 */
import type { Logger } from "pino";
import type { GatewayConfig } from "../config/types.ts";
import type { Clock } from "../deps.ts";
import { gatewayObserver } from "./gateway-observer.ts";
import { incBy } from "./metrics/bound.ts";
import { GatewayMetrics } from "./metrics/metrics.ts";
import type { Observer } from "./observer.ts";
import { startTracing, type Tracing } from "./tracing/tracing.ts";
import { throttledError } from "../util/throttled-log.ts";

export interface OperatorSurface {
  metrics: GatewayMetrics | undefined;
  observer: Observer | undefined;
  /** Flushes spans (two seconds at most) and stops the event-loop monitor. */
  close(): Promise<void>;
}

/** The version spans and the resource carry. */
const VERSION = "0.1.0";

export async function startOperatorSurface(config: GatewayConfig, clock: Clock, logger: Logger): Promise<OperatorSurface> {
  const metrics = config.metrics?.enabled === false ? undefined : new GatewayMetrics();
  let tracing: Tracing | undefined;
  if (config.tracing) {
    const logFailure = throttledError(logger);
    tracing = await startTracing(
      config.tracing,
      {
        dropped: (reason, count) => {
          // Counted like the request path's metrics (bound.ts): a full queue drops every span, so this is hot.
          if (metrics) incBy(metrics.families.spansDropped, { reason }, count);
          // Drops are otherwise silent (the SDK only logs at debug): one line every few seconds at most.
          logFailure(() => new Error(`${count} span(s) dropped: ${reason}`), "tracing: spans were dropped (collector down or too slow)");
        },
        exported: (count) => metrics?.families.spansExported.inc(count),
      },
      logger,
      VERSION,
    );
  }
  return {
    metrics,
    observer: gatewayObserver(clock, metrics?.families, tracing),
    async close() {
      metrics?.stop();
      await tracing?.shutdown();
    },
  };
}
