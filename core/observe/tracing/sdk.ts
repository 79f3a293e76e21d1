/**
 * The OpenTelemetry export path, loaded (dynamic import from tracing.ts) only when tracing is configured: with
 * tracing off the process never loads it. Spans are written by hand after each request (request-trace.ts,
 * span-recorder.ts): Node's auto-instrumentation sees nothing of `Bun.serve` or `fetch`, and building them once the
 * request has ended keeps their cost off its path. Written as OTLP protobuf (otlp-proto.ts) straight into the
 * batches of a bounded queue (span-queue.ts), sent over OTLP/HTTP (otlp-exporter.ts).
 */
import type { TracingConfig } from "../../config/observability.ts";
import { OtlpProtoExporter } from "./otlp-exporter.ts";
import { exportFrame } from "./otlp-proto.ts";
import { SpanQueue, type ProcessorCounters } from "./span-queue.ts";
import { SpanRecorder } from "./span-recorder.ts";

export interface TracingSdk {
  spans: SpanRecorder;
  shutdown(): Promise<void>;
}

export function startSdk(config: TracingConfig, counters: ProcessorCounters, version: string): TracingSdk {
  const frame = exportFrame({ resource: { "service.name": config.serviceName, "service.version": version }, scope: { name: "inference-gateway", version } });
  const queue = new SpanQueue(new OtlpProtoExporter(config.url, config.headers), frame, { queueSize: config.queueSize, batchSize: config.batchSize, delayMs: config.delayMs }, counters);
  return {
    spans: new SpanRecorder(queue, config.sampleRatio),
    shutdown: () => queue.shutdown(),
  };
}
