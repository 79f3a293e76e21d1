/**
 * An OTLP/HTTP collector stand-in for bench/observability.ts: accepts trace exports (protobuf, what the gateway
 * sends), counts spans, keeps nothing. A real collector runs elsewhere; this one shares the bench machine's cores
 * with the gateways, so it does as little as it can: it walks the message framing to count spans and decodes nothing.
 */
import { announce } from "./child.ts";

/** Reads a varint at `at`: [value, next position]. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let scale = 1; ; scale *= 128) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
  }
}

/** Calls `each(field, start, end)` for every length-delimited field of the message in bytes[from, to). */
function fields(bytes: Uint8Array, from: number, to: number, each: (field: number, start: number, end: number) => void): void {
  for (let at = from; at < to; ) {
    const [key, next] = varint(bytes, at);
    const wire = key & 7;
    if (wire === 2) {
      const [length, start] = varint(bytes, next);
      each(key >>> 3, start, start + length);
      at = start + length;
    } else if (wire === 0) at = varint(bytes, next)[1];
    else at = next + (wire === 1 ? 8 : 4);
  }
}

let spans = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = new Uint8Array(await request.arrayBuffer());
    // ExportTraceServiceRequest.resource_spans (1) → ResourceSpans.scope_spans (2) → ScopeSpans.spans (2).
    fields(body, 0, body.length, (f, s, e) => {
      if (f === 1) fields(body, s, e, (g, s2, e2) => g === 2 && fields(body, s2, e2, (h) => void (h === 2 && spans++)));
    });
    return Response.json({});
  },
});
process.on("SIGTERM", () => {
  process.stdout.write(`${JSON.stringify({ spans })}\n`);
  void server.stop(true).then(() => process.exit(0));
});
announce(server.port ?? 0, { url: `http://127.0.0.1:${server.port}/v1/traces` });
