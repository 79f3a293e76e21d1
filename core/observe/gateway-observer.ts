/**
 * The Observer the pipeline calls (observer.ts), feeding metrics and, when tracing is on, the trace records. Each
 * part is optional: with metrics off and tracing off the gateway has no observer at all (`deps.observer` unset),
 * so the request path's hooks are one optional call that does nothing.
 */
import type { Clock } from "../deps.ts";
import type { Observer } from "./observer.ts";
import type { MetricFamilies } from "./metrics/families.ts";
import { recordRequest, recordToolCall, recordTurn } from "./metrics/record.ts";
import { recordsOf } from "./tracing/records.ts";
import type { Tracing } from "./tracing/tracing.ts";

export function gatewayObserver(clock: Clock, metrics: MetricFamilies | undefined, tracing: Tracing | undefined): Observer | undefined {
  if (!metrics && !tracing) return undefined;
  return {
    turn(ctx, endpoint, usage, cost, finish) {
      if (metrics) recordTurn(metrics, endpoint, usage, cost, finish);
      if (tracing) recordsOf(ctx).turns.push({ endpoint, usage, cost, finish, endedAt: clock.now(), attemptsUpTo: ctx.attempts.length });
    },
    toolCall(ctx, part, startedAt) {
      const endedAt = clock.now();
      if (metrics) recordToolCall(metrics, part, Math.max(0, endedAt - startedAt) / 1000);
      if (tracing) recordsOf(ctx).tools.push({ part, startedAt, endedAt });
    },
    request(ctx, status) {
      const endedAt = clock.now();
      if (metrics) recordRequest(metrics, ctx, status, endedAt);
      tracing?.finish(ctx, status, endedAt);
    },
  };
}
