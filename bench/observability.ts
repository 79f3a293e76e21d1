/**
 * `npm run bench:observability`: what metrics and tracing cost, measured in one run. Three gateways of this tree run
 * at once in front of one simulator — OFF (metrics off, no tracing: no observer at all), METRICS (the default:
 * metrics on, tracing off) and ON (metrics, plus every request traced to an OTLP sink in its own process) — and
 * short rounds of the same load rotate between them,
 * so whatever else the machine does weighs on both alike. Reports req/s and the gateway process's CPU per request
 * (medians over rounds) and each one's throughput against OFF (target: within 5 %). `BENCH_SAMPLE=0.25` traces a
 * quarter of the requests instead of all. All traffic stays on 127.0.0.1 and
 * every round is bounded in time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bundleGateway, Fleet, SCENARIOS } from "./fleet.ts";
import { cpuMsOf, runForDuration, type RequestSpec } from "./load.ts";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1500);
const dir = mkdtempSync(join(tmpdir(), "gateway-observe-"));
const fleet = new Fleet();

try {
  const entry = await bundleGateway(resolve(import.meta.dir, ".."), join(dir, "bundle"));
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const sink = await fleet.spawn(join(import.meta.dir, "otlp-sink.ts"), {});
  const upstream = String(sim.url);
  const targets = [
    await fleet.gateway(entry, "OFF", join(dir, "OFF-data"), { BENCH_UPSTREAM: upstream, BENCH_OBSERVE: "off" }),
    await fleet.gateway(entry, "METRICS", join(dir, "METRICS-data"), { BENCH_UPSTREAM: upstream }),
    await fleet.gateway(entry, "ON", join(dir, "ON-data"), { BENCH_UPSTREAM: upstream, BENCH_OBSERVE: "on", BENCH_OTLP: String(sink.url) }),
  ];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const scenario of SCENARIOS) {
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      // Rotate which goes first; round -1 warms them up and is not counted.
      const shift = ((round % targets.length) + targets.length) % targets.length;
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        const spec: RequestSpec = { url: target.url, headers: target.headers, body: JSON.stringify(scenario.body), stream: scenario.stream };
        const before = cpuMsOf(target.pid);
        const result = await runForDuration(spec, scenario.concurrency, ROUND_MS);
        if (round < 0) continue;
        cpu.get(target.name)!.push(((cpuMsOf(target.pid) - before) * 1000) / Math.max(1, result.requests));
        rps.get(target.name)!.push(result.rps);
      }
    }
    for (const target of targets) {
      const c = cpu.get(target.name)!;
      console.log(`${scenario.name.padEnd(24)} ${target.name.padEnd(7)} req/s median ${median(rps.get(target.name)!).toFixed(0).padStart(6)}  CPU µs/req median ${median(c).toFixed(0).padStart(5)} (${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)})`);
    }
    for (const name of ["METRICS", "ON"]) {
      const ratio = median(rps.get(name)!) / median(rps.get("OFF")!);
      const cpuDelta = median(cpu.get(name)!) - median(cpu.get("OFF")!);
      console.log(`${scenario.name.padEnd(24)} ${name}/OFF throughput ${(ratio * 100).toFixed(1)} % (target ≥ 95 %), CPU ${cpuDelta >= 0 ? "+" : ""}${cpuDelta.toFixed(0)} µs/req`);
    }
  }
} finally {
  fleet.killAll();
  await Bun.sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
