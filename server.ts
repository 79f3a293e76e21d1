/**
 * Entry point: read env and config → create deps → create app → listen. SIGTERM/SIGINT stop accepting new
 * connections, let running streams finish within the grace period, flush usage, then exit.
 */
import { createGateway, ensureFirstKeys } from "./core/bootstrap.ts";
import { API_PREFIX } from "./core/app.ts";
import { bufferedStdout, createLogger, flushEverySecond } from "./core/logger.ts";
import { ConfigError, loadConfig } from "./core/config/load.ts";
import { openStreamCount } from "./core/http/sse.ts";
import { ModuleError } from "./core/registry/registry.ts";
import { serveGateway } from "./core/serve.ts";

async function main(): Promise<void> {
  const config = await loadConfig();
  // Logs are buffered (one write per ~4 KB, not per line), flushed asynchronously every second (never blocking the
  // event loop) and synchronously at exit.
  const destination = bufferedStdout();
  const flusher = flushEverySecond(destination);
  const gateway = await createGateway(config, { logger: createLogger(config.logLevel, destination) });
  const firstKeys = await ensureFirstKeys(gateway);
  const server = serveGateway(config, gateway);
  const base = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.port}${API_PREFIX}`;
  gateway.deps.logger.info({ url: base, providers: config.providers.map((p) => p.id) }, "gateway listening");
  destination.flushSync();
  if (firstKeys) {
    // Printed once, on the first start against an empty database: only hashes are stored.
    process.stdout.write(
      `\nFirst start: created two API keys (shown only now, store them safely)\n` +
        `  management key: ${firstKeys.management}\n  inference key:  ${firstKeys.inference}\n` +
        `Try: curl ${base}/chat/completions -H "Authorization: Bearer ${firstKeys.inference}" ` +
        `-H "Content-Type: application/json" -d '{"model":"simulator/small","messages":[{"role":"user","content":"Hello"}]}'\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.deps.logger.info({ signal, open_streams: openStreamCount() }, "shutting down: no new connections");
    const drained = server.stop(false);
    const deadline = Date.now() + config.shutdownGraceMs;
    while (openStreamCount() > 0 && Date.now() < deadline) await Bun.sleep(50);
    await Promise.race([drained, Bun.sleep(Math.max(0, deadline - Date.now()))]);
    await server.stop(true);
    await gateway.close();
    clearInterval(flusher);
    destination.flushSync();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof ModuleError) {
    process.stderr.write(`gateway: ${error.message}\n`);
  } else {
    process.stderr.write(`gateway: failed to start: ${(error as Error)?.stack ?? String(error)}\n`);
  }
  process.exit(1);
});
