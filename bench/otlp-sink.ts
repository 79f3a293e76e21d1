/**
 * An OTLP/HTTP collector stand-in for bench/observability.ts: accepts trace exports, counts spans, keeps nothing.
 * A real collector runs elsewhere; this one shares the bench machine's cores with the gateways, so it does as little
 * as it can: the body stays bytes (no UTF-8 decoding into a string) and spans are counted with a native search.
 */
import { announce } from "./child.ts";

/** Every span of an OTLP/JSON export has exactly one `"spanId"` key (`"parentSpanId"` does not contain it). */
const SPAN_ID = Buffer.from('"spanId"');

let spans = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = Buffer.from(await request.arrayBuffer());
    for (let at = body.indexOf(SPAN_ID); at !== -1; at = body.indexOf(SPAN_ID, at + SPAN_ID.length)) spans++;
    return Response.json({});
  },
});
process.on("SIGTERM", () => {
  process.stdout.write(`${JSON.stringify({ spans })}\n`);
  void server.stop(true).then(() => process.exit(0));
});
announce(server.port ?? 0, { url: `http://127.0.0.1:${server.port}/v1/traces` });
