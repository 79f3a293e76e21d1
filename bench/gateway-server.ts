/**
 * One bench gateway (bench-gateway.ts) in a process of its own, set by environment: `BENCH_DIR`, `BENCH_MODEL`,
 * `BENCH_UPSTREAM`, `BENCH_ADMIN_KEY`, and `BENCH_OBSERVE` (`off` / `on` with `BENCH_OTLP` and `BENCH_SAMPLE`).
 */
import { startBenchGateway } from "./bench-gateway.ts";
import { announce, required } from "./child.ts";

const observe = process.env.BENCH_OBSERVE;
const gateway = await startBenchGateway({
  dir: required("BENCH_DIR"),
  model: required("BENCH_MODEL"),
  upstream: required("BENCH_UPSTREAM"),
  adminKey: required("BENCH_ADMIN_KEY"),
  observe: observe === "off" || observe === "on" ? observe : undefined,
  otlp: process.env.BENCH_OTLP,
  sample: process.env.BENCH_SAMPLE === undefined ? undefined : Number(process.env.BENCH_SAMPLE),
});

process.on("SIGTERM", async () => {
  await gateway.stop();
  process.exit(0);
});
announce(gateway.port, { log: gateway.log, idleTrimMs: gateway.idleTrimMs });
