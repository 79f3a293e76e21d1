/**
 * A loopback OTLP/HTTP trace collector fake: accepts `POST /v1/traces` in either OTLP/HTTP encoding (protobuf, what
 * the gateway's exporter sends, or JSON) and keeps every span flattened with its attributes as plain values, for
 * tests to read the span tree.
 */
import { decodeTraceRequest } from "./otlp-proto-decode.ts";

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpCollector {
  url: string;
  spans: CollectedSpan[];
  /** Resolves once at least `count` spans arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<CollectedSpan[]>;
  stop(): void;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

type KeyValue = { key: string; value: AnyValue };

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

const nanosToMs = (value: string | number) => Number(BigInt(value) / 1_000_000n);

export function startOtlpCollector(): OtlpCollector {
  const spans: CollectedSpan[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      const protobuf = request.headers.get("content-type") === "application/x-protobuf";
      const body = (protobuf ? decodeTraceRequest(new Uint8Array(await request.arrayBuffer())) : await request.json()) as { resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: s.parentSpanId ? String(s.parentSpanId) : undefined,
              name: String(s.name),
              kind: Number(s.kind),
              startMs: nanosToMs(s.startTimeUnixNano as string),
              endMs: nanosToMs(s.endTimeUnixNano as string),
              status: (s.status ?? {}) as CollectedSpan["status"],
              attributes: attributesOf(s.attributes as KeyValue[]),
              resource,
            });
          }
        }
      }
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1/traces`,
    spans,
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (spans.length < count) {
        if (Date.now() > deadline) throw new Error(`collector: ${spans.length} of ${count} spans after ${timeoutMs} ms`);
        await Bun.sleep(10);
      }
      return spans;
    },
    stop: () => void server.stop(true),
  };
}
