/**
 * Preloaded into Portkey's Node server (`node --import`, bench/portkey.ts): makes it a bench child like the others.
 * - Its server listens on 127.0.0.1 only (Portkey binds every interface and has no option for it) and announces its
 *   port as the other children do: one `{"ready": true, "port"}` line on stdout.
 * - It answers the parent's `gc` / `stats` over IPC (run with --expose-gc).
 * - Its streamed replies work: as installed from npm, every stream fails with `TypeError: immutable`, because the
 *   Response class its Node adapter (@hono/node-server) installs keeps the upstream fetch reply's headers object
 *   (immutable) when a Response is built from another, and Portkey then appends its own headers to it. The
 *   replacement copies those headers first, which is what the platform's own Response constructor does anyway.
 */
import net from "node:net";

const NativeResponse = globalThis.Response;
let patched = false;

/** Called once the adapter has installed its Response (it does so before the server listens). */
function fixResponseHeaders() {
  if (patched || globalThis.Response === NativeResponse) return;
  patched = true;
  const Adapter = globalThis.Response;
  class CopyingResponse extends Adapter {
    constructor(body, init) {
      const fromFetch = init instanceof NativeResponse && !(init instanceof Adapter);
      super(body, fromFetch ? { status: init.status, statusText: init.statusText, headers: new Headers(init.headers) } : init);
    }
  }
  Object.defineProperty(globalThis, "Response", { value: CopyingResponse, writable: true, configurable: true });
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] !== "number" && typeof args[0] !== "string") return listen.apply(this, args);
  fixResponseHeaders();
  const callback = args.find((a) => typeof a === "function");
  this.once("listening", () => {
    const address = this.address();
    process.stdout.write(`${JSON.stringify({ ready: true, port: typeof address === "object" && address ? address.port : 0 })}\n`);
  });
  return listen.call(this, { port: Number(args[0]), host: "127.0.0.1" }, callback);
};

process.on("message", (message) => {
  if (message === "gc") globalThis.gc?.();
  if (message === "gc" || message === "stats") {
    const m = process.memoryUsage();
    process.send?.({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
  }
});
