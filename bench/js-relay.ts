/**
 * The floor of a gateway that reads its streams in JavaScript: the gateway's own upstream client
 * (core/upstream-http) and its way of answering a stream (a direct ReadableStream, write + flush per chunk), with
 * nothing in between — no auth, no parsing, no re-encoding, no logging. Each chunk the upstream sends is copied to
 * the client as it arrives. The bare proxy is the floor with no JavaScript touching the bytes; this one is the floor
 * once JavaScript does (README "Performance").
 */
import { createUpstreamFetch } from "../core/upstream-http/fetch.ts";
import { announce, required } from "./child.ts";

const upstream = `${required("BENCH_UPSTREAM")}/chat/completions`;
const upstreamFetch = createUpstreamFetch();

/** Copies the upstream body to the client chunk by chunk, awaiting the sink when it is behind. */
function relayed(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const source = {
    type: "direct",
    // The client went away: stop reading the upstream, as the gateway does.
    cancel: () => reader.cancel().catch(() => undefined),
    async pull(controller: ReadableStreamDirectController) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const written = controller.write(value);
        const flushed = controller.flush();
        if (typeof written !== "number") await written;
        if (typeof flushed !== "number") await flushed;
      }
      controller.close();
    },
  };
  return new ReadableStream(source as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0]);
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 255,
  async fetch(request) {
    const reply = await upstreamFetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: new Uint8Array(await request.arrayBuffer()) });
    const headers = { "content-type": reply.headers.get("content-type") ?? "application/json" };
    return new Response(reply.body ? relayed(reply.body) : null, { status: reply.status, headers });
  },
});

announce(server.port ?? 0);
