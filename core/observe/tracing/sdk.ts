/**
 * The OpenTelemetry export path, loaded (dynamic import from tracing.ts) only when tracing is configured: with
 * tracing off the process never loads it. Spans are written by hand after each request (request-trace.ts,
 * span-recorder.ts): Node's auto-instrumentation sees nothing of `Bun.serve` or `fetch`, and building them once the
 * request has ended keeps their cost off its path. Exported as OTLP/HTTP protobuf (otlp-proto.ts, otlp-exporter.ts)
 * through a bounded queue (bounded-processor.ts).
 */
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { TracingConfig } from "../../config/observability.ts";
import { BoundedSpanProcessor, type ProcessorCounters } from "./bounded-processor.ts";
import { OtlpProtoExporter } from "./otlp-exporter.ts";
import { SpanRecorder } from "./span-recorder.ts";

export interface TracingSdk {
  spans: SpanRecorder;
  propagator: W3CTraceContextPropagator;
  shutdown(): Promise<void>;
}

export function startSdk(config: TracingConfig, counters: ProcessorCounters, version: string): TracingSdk {
  const exporter = new OtlpProtoExporter(config.url, config.headers, {
    resource: { "service.name": config.serviceName, "service.version": version },
    scope: { name: "inference-gateway", version },
  });
  const processor = new BoundedSpanProcessor(exporter, { queueSize: config.queueSize, batchSize: config.batchSize, delayMs: config.delayMs }, counters);
  return {
    spans: new SpanRecorder(processor, config.sampleRatio),
    propagator: new W3CTraceContextPropagator(),
    shutdown: () => processor.shutdown(),
  };
}
