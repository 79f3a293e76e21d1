/**
 * The gateway as the bench runs it: the default pipeline (auth, routing, accounting, request logging at `info`) with
 * a SQLite file database in a temp dir, the memory kv, and one `openai` adapter provider pointing at the standalone
 * simulator server. Assembled exactly like server.ts (createGateway + serveGateway, the log destination buffered and
 * flushed the same way); the only difference is that pino writes its request lines to a file instead of stdout.
 */
import pino from "pino";
import { join } from "node:path";
import { createGateway } from "../core/bootstrap.ts";
import { buildConfig, validateConfigFile } from "../core/config/load.ts";
import { createLogger, flushEverySecond } from "../core/logger.ts";
import { serveGateway } from "../core/serve.ts";
import { announce, required } from "./child.ts";

const dir = required("BENCH_DIR");
const model = required("BENCH_MODEL");

/**
 * `BENCH_OBSERVE`: `off` turns metrics off (no observer at all: the baseline of bench/observability.ts); `on` adds
 * tracing to the OTLP sink at `BENCH_OTLP` (sampling `BENCH_SAMPLE`, default every request); unset is the default (metrics on, tracing off), what `npm run bench` runs.
 */
const observe = process.env.BENCH_OBSERVE;
const file = validateConfigFile({
  ...(observe === "off" ? { metrics: { enabled: false } } : {}),
  ...(observe === "on" ? { tracing: { endpoint: required("BENCH_OTLP"), sample_ratio: Number(process.env.BENCH_SAMPLE ?? 1) } } : {}),
  providers: [
    {
      id: "sim",
      adapter: "openai",
      base_url: required("BENCH_UPSTREAM"),
      api_key: "bench-upstream-key",
      models: [{ id: model, upstream_model: model, pricing: { prompt: 0.0000001, completion: 0.0000004 }, context_length: 32768 }],
    },
  ],
});
const config = buildConfig(
  file,
  {
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: `sqlite://${join(dir, "gateway.db")}`,
    GATEWAY_ADMIN_KEY: required("BENCH_ADMIN_KEY"),
    LOG_LEVEL: "info",
  },
  dir,
);
// Buffered like server.ts's bufferedStdout (one write per ~4 KB, flushed every second and at exit), so the bench
// charges the gateway the logging cost production pays, not one write per line.
const destination = pino.destination({ dest: join(dir, "gateway.log"), minLength: 4096, sync: false });
const flusher = flushEverySecond(destination);
const logger = createLogger(config.logLevel, destination);
const gateway = await createGateway(config, { logger });
const server = serveGateway(config, gateway);

const stop = async () => {
  await server.stop(true);
  await gateway.close();
  clearInterval(flusher);
  destination.flushSync();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());

announce(server.port ?? 0, { log: join(dir, "gateway.log"), idleTrimMs: config.idleTrimMs });
