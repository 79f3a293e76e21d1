/**
 * How the gateway listens: the one `Bun.serve` call server.ts and the bench both make, so the bench serves exactly
 * like production (same idle timeout and body-size cap).
 */
import type { Server } from "bun";
import type { GatewayConfig } from "./config/types.ts";
import { frontDoor, type Front } from "./http/front-door.ts";
import { adminRoutes } from "./admin-page.ts";

export type { Front };

/**
 * Starts the HTTP server for a gateway on `config.host`:`config.port` (port 0 picks a free one). `front.app` is read
 * per request, so server.ts can listen before the gateway exists and swap it in once it does.
 */
export function serveGateway(config: GatewayConfig, front: Front): Server<undefined> {
  const door = frontDoor(front);
  return Bun.serve({
    hostname: config.host,
    port: config.port,
    idleTimeout: config.idleTimeoutSeconds,
    // No cap of Bun's own: it would answer a declared length over it with a bare 413, without our envelope. The app
    // refuses a declared length over the limit before reading the body, and reads every body with its bounds of
    // size, time and nesting (core/http/body-read.ts).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Bun's development mode (its default unless NODE_ENV=production) answers an uncaught error with a page
    // showing the working directory, file paths and source lines. Never: errors are the envelope (./http/front-door.ts).
    development: false,
    // The admin page (README "Admin page") is static: answered by Bun itself, before the front door.
    routes: adminRoutes(),
    fetch: door.fetch,
    error: door.error,
  });
}
