/**
 * Event-loop lag, measured by us: prom-client's default process metrics are partly empty under Bun (its
 * `monitorEventLoopDelay` reports nothing), so a timer that should fire every `intervalMs` records how late it
 * fired. A late timer means every request waited that long too (a blocking SQLite flush, a huge JSON.stringify).
 */
import { Gauge, Histogram, type Registry } from "prom-client";

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface LagMonitor {
  stop(): void;
}

export function monitorEventLoop(registry: Registry, intervalMs = 100): LagMonitor {
  const lag = new Histogram({ name: "gateway_event_loop_lag_seconds", help: "How late a 100 ms timer fired.", buckets: BUCKETS, registers: [registry] });
  let worst = 0;
  new Gauge({
    name: "gateway_event_loop_lag_max_seconds",
    help: "The largest event-loop lag since the previous scrape.",
    registers: [registry],
    collect() {
      this.set(worst);
      worst = 0;
    },
  });
  let expected = performance.now() + intervalMs;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - expected) / 1000;
    expected = now + intervalMs;
    lag.observe(late);
    if (late > worst) worst = late;
  }, intervalMs);
  // Never keeps the process alive on its own.
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
