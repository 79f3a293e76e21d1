/**
 * The gateway as the bench runs it: the default pipeline (auth, routing, accounting, request logging at `info`) with
 * a SQLite file database in a temp dir and the memory kv (or Postgres and Redis: `store`), and one `openai` adapter
 * provider pointing at the standalone simulator server. Assembled exactly like server.ts (createGateway + serveGateway, the log destination buffered and
 * flushed the same way); the only difference is that pino writes its request lines to a file instead of stdout.
 */
import pino from "pino";
import { join } from "node:path";
import { createGateway } from "../core/bootstrap.ts";
import { buildConfig, validateConfigFile } from "../core/config/load.ts";
import { createLogger, flushEverySecond } from "../core/logger.ts";
import { serveGateway } from "../core/serve.ts";
import { required } from "./child.ts";

export interface BenchGatewayOptions {
  dir: string;
  model: string;
  upstream: string;
  adminKey: string;
  /**
   * `off` turns metrics off (no observer at all: the baseline of bench/observability.ts); `on` adds tracing to the
   * OTLP sink at `otlp` (sampling `sample`, default every request); unset is the default (metrics on, tracing off),
   * what `npm run bench` runs.
   */
  observe?: "off" | "on";
  otlp?: string;
  sample?: number;
  /**
   * `shared`: the multi-node deployment's stores, Postgres at `BENCH_DATABASE_URL` and Redis at `BENCH_REDIS_URL`
   * (the parent makes a schema of its own in that database); unset: the embedded default (SQLite file, memory kv).
   */
  store?: "shared";
  /** The upstream provider's id; a shared Redis needs one of the run's own (its breakers and stickiness live there). */
  providerId?: string;
  /** A kind of the `openai` adapter for the provider (`BENCH_KIND`, e.g. `deepseek`): its quirks' cost on the same traffic. */
  kind?: string;
  /** The simulator behind the `azure` adapter (v1 URLs, api-key header) instead of `openai` (bench/azure.ts). */
  adapter?: "openai" | "azure";
}

/** The options the bench's parent passes by environment (`BENCH_MODEL`, `BENCH_UPSTREAM`, …), for a data directory. */
export function optionsFromEnv(dir: string, observe: string | undefined, store?: string): BenchGatewayOptions {
  return {
    ...(store === "shared" ? { store: "shared" as const, providerId: `sim-${required("BENCH_RUN_ID")}` } : {}),
    dir,
    model: required("BENCH_MODEL"),
    upstream: required("BENCH_UPSTREAM"),
    adminKey: required("BENCH_ADMIN_KEY"),
    observe: observe === "off" || observe === "on" ? observe : undefined,
    otlp: process.env.BENCH_OTLP,
    sample: process.env.BENCH_SAMPLE === undefined ? undefined : Number(process.env.BENCH_SAMPLE),
    ...(process.env.BENCH_KIND ? { kind: process.env.BENCH_KIND } : {}),
  };
}

export async function startBenchGateway(o: BenchGatewayOptions) {
  if (o.observe === "on" && !o.otlp) throw new Error("bench gateway: tracing needs the OTLP sink's URL");
  const file = validateConfigFile({
    ...(o.observe === "off" ? { metrics: { enabled: false } } : {}),
    ...(o.observe === "on" ? { tracing: { endpoint: o.otlp, sample_ratio: o.sample ?? 1 } } : {}),
    providers: [
      {
        id: o.providerId ?? "sim",
        adapter: o.adapter ?? "openai",
        ...(o.kind !== undefined ? { kind: o.kind, discovery_interval_seconds: 0 } : {}),
        base_url: o.upstream,
        api_key: "bench-upstream-key",
        models: [{ id: o.model, upstream_model: o.model, pricing: { prompt: 0.0000001, completion: 0.0000004 }, context_length: 32768 }],
      },
    ],
  });
  const stores =
    o.store === "shared"
      ? { DATABASE_URL: required("BENCH_DATABASE_URL"), REDIS_URL: required("BENCH_REDIS_URL") }
      : { DATABASE_URL: `sqlite://${join(o.dir, "gateway.db")}` };
  const config = buildConfig(file, { HOST: "127.0.0.1", PORT: "0", ...stores, GATEWAY_ADMIN_KEY: o.adminKey, LOG_LEVEL: "info" }, o.dir);
  // Buffered like server.ts's bufferedStdout (one write per ~4 KB, flushed every second and at exit), so the bench
  // charges the gateway the logging cost production pays, not one write per line.
  const destination = pino.destination({ dest: join(o.dir, "gateway.log"), minLength: 4096, sync: false });
  const flusher = flushEverySecond(destination);
  const logger = createLogger(config.logLevel, destination);
  const gateway = await createGateway(config, { logger });
  const server = serveGateway(config, gateway);
  return {
    port: server.port ?? 0,
    log: join(o.dir, "gateway.log"),
    idleTrimMs: config.idleTrimMs,
    async stop() {
      await server.stop(true);
      await gateway.close();
      clearInterval(flusher);
      destination.flushSync();
    },
  };
}
