/**
 * The gateway bench/stall.ts measures, in a process of its own and bundled like `npm start`: the default pipeline
 * with a SQLite file in `BENCH_DIR`, requests logged at `info` to a file there (buffered as server.ts does). Models:
 * `bench/small` (a window of 8,192 tokens: context-compression is on for it by default), `bench/large` (200,000) and
 * `bench/huge` (4,000,000) on the standalone simulator at `BENCH_UPSTREAM`; `bench/agent` on the scripted upstream at
 * `BENCH_SCRIPTED` (bench/stall-upstream.ts). Loopback is on the operator allow-list, so server tools may fetch the
 * bench's pages. Its workers (documents, sandbox, guardrail scans) are bundled beside it by bench/stall.ts.
 */
import pino from "pino";
import { join } from "node:path";
import { createGateway } from "../core/bootstrap.ts";
import { buildConfig, validateConfigFile } from "../core/config/load.ts";
import { createLogger, flushEverySecond } from "../core/logger.ts";
import { serveGateway } from "../core/serve.ts";
import { announce, required } from "./child.ts";

const dir = required("BENCH_DIR");
const pricing = { prompt: 0.0000001, completion: 0.0000004 };
const file = validateConfigFile({
  providers: [
    {
      id: "sim",
      adapter: "openai",
      base_url: required("BENCH_UPSTREAM"),
      api_key: "bench-upstream-key",
      models: [
        { id: "bench/small", upstream_model: "bench/small", pricing, context_length: 8_192 },
        { id: "bench/large", upstream_model: "bench/large", pricing, context_length: 200_000 },
        // Room for a prompt of megabytes, so the limits stage lets it through to the checks under test.
        { id: "bench/huge", upstream_model: "bench/large", pricing, context_length: 4_000_000 },
      ],
    },
    { id: "scripted", adapter: "openai", base_url: required("BENCH_SCRIPTED"), api_key: "bench-upstream-key", models: [{ id: "bench/agent", upstream_model: "m", pricing, context_length: 200_000 }] },
  ],
  network: { allow_private: ["127.0.0.1/32"] },
  sandbox: { dir: join(dir, "containers") },
});
const config = buildConfig(file, { HOST: "127.0.0.1", PORT: "0", DATABASE_URL: `sqlite://${join(dir, "gateway.db")}`, GATEWAY_ADMIN_KEY: required("BENCH_ADMIN_KEY"), LOG_LEVEL: "info" }, dir);
const destination = pino.destination({ dest: join(dir, "gateway.log"), minLength: 4096, sync: false });
const flusher = flushEverySecond(destination);
const gateway = await createGateway(config, { logger: createLogger(config.logLevel, destination) });
const server = serveGateway(config, gateway);

process.on("SIGTERM", async () => {
  await server.stop(true);
  await gateway.close();
  clearInterval(flusher);
  destination.flushSync();
  process.exit(0);
});
announce(server.port ?? 0);
