/**
 * Sends spans to an OTLP/HTTP collector as JSON (`POST …/v1/traces`) with Bun's fetch: no retry of its own (the
 * bounded processor counts a failed batch as dropped and goes on), a 10 s time-out per export, and nothing that
 * can throw into the caller. The spans arrive as OTLP/JSON text (span-recorder.ts): a request body is the shared
 * resource and scope around them, joined. Replaces the OpenTelemetry OTLP exporter, whose object-tree
 * serialisation and Node HTTP client cost more than the rest of tracing together (bench/observability.ts).
 */
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { BatchExporter } from "./bounded-processor.ts";
import { exportFrame, type ExportEnvelope } from "./otlp-json.ts";

const TIMEOUT_MS = 10_000;

export class OtlpJsonExporter implements BatchExporter<string> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly frame: { head: string; tail: string };
  private readonly headers: Record<string, string>;

  constructor(
    private readonly url: string,
    headers: Record<string, string>,
    envelope: ExportEnvelope,
  ) {
    this.frame = exportFrame(envelope);
    this.headers = { ...headers, "content-type": "application/json" };
  }

  export(spans: string[], done: (result: ExportResult) => void): void {
    const sending = fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: this.frame.head + spans.join(",") + this.frame.tail,
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
