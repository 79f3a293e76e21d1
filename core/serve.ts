/**
 * How the gateway listens: the one `Bun.serve` call server.ts and the bench both make, so the bench serves exactly
 * like production (same idle timeout and body-size cap).
 */
import type { Server } from "bun";
import type { GatewayConfig } from "./config/types.ts";

/** What the server hands requests to: a gateway, or (server.ts, while start-up waits for a store) a stand-in. */
export interface Front {
  readonly app: { handle(request: Request): Response | Promise<Response> };
}

/**
 * Starts the HTTP server for a gateway on `config.host`:`config.port` (port 0 picks a free one). `front.app` is read
 * per request, so server.ts can listen before the gateway exists and swap it in once it does.
 */
export function serveGateway(config: GatewayConfig, front: Front): Server<undefined> {
  return Bun.serve({
    hostname: config.host,
    port: config.port,
    idleTimeout: config.idleTimeoutSeconds,
    // No cap of Bun's own: it would answer a declared length over it with a bare 413, without our envelope. The app
    // refuses a declared length over the limit before reading the body, and reads an undeclared (chunked) one with
    // a bound (core/http/body-limit.ts).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: (request) => front.app.handle(request),
  });
}
