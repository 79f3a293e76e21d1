/**
 * Sends spans to an OTLP/HTTP collector as protobuf (`POST …/v1/traces`, `application/x-protobuf`, the encoding
 * every OTLP/HTTP collector must accept) with Bun's fetch: no retry of its own (the bounded processor counts a
 * failed batch as dropped and goes on), a 10 s time-out per export, and nothing that can throw into the caller. The
 * spans arrive encoded (span-recorder.ts): a request body is the shared resource and scope around them. Replaces
 * the OpenTelemetry OTLP exporter, whose object-tree serialisation and Node HTTP client cost more than the rest of
 * tracing together (bench/observability.ts).
 */
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { BatchExporter } from "./bounded-processor.ts";
import { exportBody, exportFrame, type ExportEnvelope, type ExportFrame } from "./otlp-proto.ts";
import { ProtoWriter } from "./proto-writer.ts";

const TIMEOUT_MS = 10_000;

export class OtlpProtoExporter implements BatchExporter<Uint8Array> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly frame: ExportFrame;
  /**
   * The body's buffer, reused from one export to the next (a fresh ~100 KB buffer per export cost the event loop
   * ~1 %, its pages faulted in each time); a new one only while an earlier body may still be read (exports overlap
   * only after a time-out).
   */
  private readonly body = new ProtoWriter(64 * 1024);
  private readonly headers: Record<string, string>;

  constructor(
    private readonly url: string,
    headers: Record<string, string>,
    envelope: ExportEnvelope,
  ) {
    this.frame = exportFrame(envelope);
    this.headers = { ...headers, "content-type": "application/x-protobuf" };
  }

  export(spans: Uint8Array[], done: (result: ExportResult) => void): void {
    const sending = fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: exportBody(this.inFlight.size === 0 ? this.body : new ProtoWriter(), this.frame, spans),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).then(
      async (response) => {
        // Read the body (the collector's partial-success report) so the connection can be reused.
        await response.arrayBuffer().catch(() => undefined);
        done({ code: response.ok ? ExportResultCode.SUCCESS : ExportResultCode.FAILED });
      },
      (error: unknown) => done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
