/**
 * The bench gateway (bench-gateway.ts, as gateway-server.ts runs it) for bench/profile.ts: besides the usual `gc`, it
 * answers `mark` with the time of its CPU profiler's clock (so the profile can be cut to the load's window) and
 * `heap:<path>` by writing a heap snapshot (Bun.generateHeapSnapshot, V8 format) to that path after a full GC.
 */
import { writeFileSync } from "node:fs";
import { optionsFromEnv, startBenchGateway } from "./bench-gateway.ts";
import { announce, required } from "./child.ts";

const gateway = await startBenchGateway(optionsFromEnv(required("BENCH_DIR"), process.env.BENCH_OBSERVE));

process.on("message", (message: unknown) => {
  if (message === "mark") process.send?.({ mark: Math.round(performance.timeOrigin * 1000 + performance.now() * 1000) });
  if (typeof message === "string" && message.startsWith("heap:")) {
    Bun.gc(true);
    writeFileSync(message.slice(5), Bun.generateHeapSnapshot("v8"));
    process.send?.({ heap: message.slice(5) });
  }
});
process.on("SIGTERM", async () => {
  await gateway.stop();
  process.exit(0);
});
announce(gateway.port, { log: gateway.log });
