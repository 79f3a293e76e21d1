/**
 * Several bench gateways (bench-gateway.ts) in ONE process, each on its own port, data directory and configuration:
 * `BENCH_VARIANTS` is `name:observe[:store[:adapter]],…` (observe `off`, `on` or empty for the default; store `shared`
 * for Postgres and Redis, else the embedded default; adapter `openai`, the default, or `azure`), the rest as for
 * gateway-server.ts. Announces `{ports: {name: port}}`.
 *
 * Why one process: the same build of the same code, started twice, ran 139–188 µs of main-thread CPU per request
 * on this 2-core machine (four starts, 8 s each after a warm-up), a spread three times the 5 % that
 * bench/observability.ts has to resolve. Gateways that share a process share that luck (its JIT, its heap, its
 * place on the cores), so what differs between them is their configuration.
 */
import { join } from "node:path";
import { optionsFromEnv, startBenchGateway } from "./bench-gateway.ts";
import { announce, required } from "./child.ts";

const ports: Record<string, number> = {};
const stops: Array<() => Promise<void>> = [];
for (const variant of required("BENCH_VARIANTS").split(",")) {
  const [name = "", observe = "", store = "", adapter = "openai"] = variant.split(":");
  const options = optionsFromEnv(join(required("BENCH_DIR"), name), observe, store);
  const gateway = await startBenchGateway(adapter === "azure" ? { ...options, adapter } : options);
  ports[name] = gateway.port;
  stops.push(() => gateway.stop());
}

process.on("SIGTERM", async () => {
  await Promise.all(stops.map((stop) => stop()));
  process.exit(0);
});
announce(Object.values(ports)[0] ?? 0, { ports });
