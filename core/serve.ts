/**
 * How the gateway listens: the one `Bun.serve` call server.ts and the bench both make, so the bench serves exactly
 * like production (same idle timeout and body-size cap).
 */
import type { Server } from "bun";
import type { Gateway } from "./bootstrap.ts";
import type { GatewayConfig } from "./config/types.ts";

/** Starts the HTTP server for a gateway on `config.host`:`config.port` (port 0 picks a free one). */
export function serveGateway(config: GatewayConfig, gateway: Gateway): Server<undefined> {
  return Bun.serve({
    hostname: config.host,
    port: config.port,
    idleTimeout: config.idleTimeoutSeconds,
    // Slightly above our limit so our own 413 envelope answers first when content-length is declared.
    maxRequestBodySize: config.bodyLimitBytes + 1,
    fetch: (request) => gateway.app.handle(request),
  });
}
