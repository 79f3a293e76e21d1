/** An OTLP/HTTP collector stand-in for bench/observability.ts: accepts trace exports, counts spans, keeps nothing. */
import { announce } from "./child.ts";

let spans = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const text = await request.text();
    // A count without parsing the whole export: every span has exactly one "spanId" key.
    spans += text.split('"spanId"').length - 1;
    return Response.json({});
  },
});
process.on("SIGTERM", () => {
  process.stdout.write(`${JSON.stringify({ spans })}\n`);
  void server.stop(true).then(() => process.exit(0));
});
announce(server.port ?? 0, { url: `http://127.0.0.1:${server.port}/v1/traces` });
