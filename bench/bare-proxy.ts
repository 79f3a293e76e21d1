/**
 * The floor: a bare Bun pass-through proxy. It forwards the request body to the simulator with fetch and returns the
 * upstream body as-is (streamed, not buffered). No auth, no parsing, no logging: any Bun gateway costs at least this.
 */
import { announce, required } from "./child.ts";

const upstream = `${required("BENCH_UPSTREAM")}/chat/completions`;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 255,
  async fetch(request) {
    const reply = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: await request.arrayBuffer() });
    return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.headers.get("content-type") ?? "application/json" } });
  },
});

announce(server.port ?? 0);
