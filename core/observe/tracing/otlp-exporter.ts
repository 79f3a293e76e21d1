/**
 * Sends export request bodies to an OTLP/HTTP collector as protobuf (`POST …/v1/traces`, `application/x-protobuf`,
 * the encoding every OTLP/HTTP collector must accept) with Bun's fetch: no retry of its own (the queue counts a failed
 * batch as dropped and goes on), a 10 s time-out per export, and nothing that can throw into the caller. The bodies
 * arrive framed (span-queue.ts). Replaces the OpenTelemetry OTLP exporter, whose object-tree serialisation and Node
 * HTTP client cost more than the rest of tracing together (bench/observability.ts).
 */
import type { BodySender } from "./span-queue.ts";

const TIMEOUT_MS = 10_000;

export class OtlpProtoExporter implements BodySender {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly headers: Record<string, string>;

  constructor(
    private readonly url: string,
    headers: Record<string, string>,
  ) {
    this.headers = { ...headers, "content-type": "application/x-protobuf" };
  }

  send(body: Uint8Array, done: (ok: boolean) => void): void {
    const sending = fetch(this.url, { method: "POST", headers: this.headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) }).then(
      async (response) => {
        // Read the body (the collector's partial-success report) so the connection can be reused.
        await response.arrayBuffer().catch(() => undefined);
        done(response.ok);
      },
      () => done(false),
    );
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
