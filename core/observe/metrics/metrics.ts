/**
 * The gateway's metrics: one prom-client registry per gateway with the families (families.ts), the scrape-time
 * gauges (collectors.ts) and the event-loop monitor. `render()` is what `GET /metrics` serves.
 */
import { Registry } from "prom-client";
import type { Deps } from "../../deps.ts";
import { flushMetrics } from "./bound.ts";
import { addCollectors } from "./collectors.ts";
import { monitorEventLoop, type LagMonitor } from "./event-loop.ts";
import { createFamilies, type MetricFamilies } from "./families.ts";

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly families: MetricFamilies = createFamilies(this.registry);
  private lag: LagMonitor | undefined;

  /** Adds the gauges read from the running gateway, and starts the event-loop monitor. */
  start(deps: Deps): void {
    addCollectors(this.registry, deps);
    this.lag ??= monitorEventLoop(this.registry);
  }

  /** The Prometheus text exposition of every family. */
  render(): Promise<string> {
    flushMetrics();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  stop(): void {
    this.lag?.stop();
    this.lag = undefined;
  }
}
