/**
 * One bench gateway (bench-gateway.ts) in a process of its own, set by environment: `BENCH_DIR`, `BENCH_MODEL`,
 * `BENCH_UPSTREAM`, `BENCH_ADMIN_KEY`, and `BENCH_OBSERVE` (`off` / `on` with `BENCH_OTLP` and `BENCH_SAMPLE`).
 */
import { optionsFromEnv, startBenchGateway } from "./bench-gateway.ts";
import { announce, required } from "./child.ts";

const gateway = await startBenchGateway(optionsFromEnv(required("BENCH_DIR"), process.env.BENCH_OBSERVE));

process.on("SIGTERM", async () => {
  await gateway.stop();
  process.exit(0);
});
announce(gateway.port, { log: gateway.log, idleTrimMs: gateway.idleTrimMs });
