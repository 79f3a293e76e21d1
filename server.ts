/**
 * Entry point: read env and config → listen (503 until ready) → create deps → create app. SIGTERM/SIGINT stop
 * accepting new connections, let running streams finish within the grace period, flush usage, then exit.
 */
import { createGateway, ensureFirstKeys, randomIds } from "./core/bootstrap.ts";
import { API_PREFIX } from "./core/http/api-prefix.ts";
import { bufferedStdout, createLogger, flushEverySecond } from "./core/logger.ts";
import { ConfigError, loadConfig } from "./core/config/load.ts";
import { openStreamCount } from "./core/http/sse.ts";
import { ModuleError } from "./core/registry/registry.ts";
import { serveGateway, type Front } from "./core/serve.ts";
import { startingApp, type StartingState } from "./core/ops/starting-app.ts";
import { StoreStartError } from "./core/ops/store-wait.ts";

async function main(): Promise<void> {
  const config = await loadConfig();
  // Logs are buffered (one write per ~4 KB, not per line), flushed asynchronously every second (never blocking the
  // event loop) and synchronously at exit.
  const destination = bufferedStdout();
  const flusher = flushEverySecond(destination);
  const logger = createLogger(config.logLevel, destination);
  // Listen first: while start-up waits for a store, liveness answers 200 and readiness (and every request) 503
  // naming it (README "Operations: store outages"); the gateway takes over once it is up.
  const starting: StartingState = { waitingFor: undefined };
  // `deps`: where the front door logs every answer it sees (core/http/front-door.ts), from the first request on.
  const front: { app: Front["app"]; deps: Front["deps"] } = { app: startingApp(starting, () => randomIds.id("gen-")), deps: { logger, ids: randomIds } };
  const server = serveGateway(config, front);
  const base = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${server.port}${API_PREFIX}`;
  const gateway = await createGateway(config, { logger, storeWait: { logger: logger.child({ url: base }), onWait: (store) => (starting.waitingFor = store) } }).catch((error: unknown) => {
    // The waiting lines go out before the one line that says why start-up gave up.
    destination.flushSync();
    throw error;
  });
  const firstKeys = await ensureFirstKeys(gateway);
  front.app = gateway.app;
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
  // Errors an operator fixes (configuration, a module, a store that never answered) are one line without a stack.
  if (error instanceof ConfigError || error instanceof ModuleError || error instanceof StoreStartError) {
    process.stderr.write(`gateway: ${error.message}\n`);
  } else {
    process.stderr.write(`gateway: failed to start: ${(error as Error)?.stack ?? String(error)}\n`);
  }
  process.exit(1);
});
