/**
 * `npm run bench:observability`: what metrics and tracing cost, measured in one run. Three gateways of this tree run
 * at once in front of one simulator — OFF (metrics off, no tracing: no observer at all), METRICS (the default:
 * metrics on, tracing off) and ON (metrics, plus every request traced to an OTLP sink in its own process) — and
 * short rounds of the same load rotate between them, so whatever else the machine does weighs on all alike.
 * Reports req/s and the gateway process's CPU per request (medians over rounds) and each one's throughput against
 * OFF's in the same round (the median of those ratios; target: within 5 %).
 *
 * The three run in one process (bench/gateway-variants.ts): separate processes of the same build differ by up to a
 * third in CPU per request on this machine, which no number of rounds averages away. `BENCH_PROCESSES=separate`
 * runs them in three processes as before; the CPU figures are then per gateway, in one process they are the
 * process's during each gateway's rounds. `BENCH_SAMPLE=0.25` traces a quarter of the requests instead of all.
 * All traffic stays on 127.0.0.1 and every round is bounded in time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bundleGateway, Fleet, SCENARIOS } from "./fleet.ts";
import { cpuMsOf, machineBusyMs, runForDuration, type RequestSpec } from "./load.ts";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 20);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "gateway-observe-"));
const fleet = new Fleet();

try {
  const root = resolve(import.meta.dir, "..");
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const sink = await fleet.spawn(join(import.meta.dir, "otlp-sink.ts"), {});
  const env = { BENCH_UPSTREAM: String(sim.url), BENCH_OTLP: String(sink.url) };
  const variants = { OFF: "off", METRICS: "", ON: "on" };
  let targets;
  if (process.env.BENCH_PROCESSES === "separate") {
    const entry = await bundleGateway(root, join(dir, "bundle"));
    targets = [];
    for (const [name, observe] of Object.entries(variants)) targets.push(await fleet.gateway(entry, name, join(dir, `${name}-data`), { ...env, BENCH_OBSERVE: observe }));
  } else {
    const entry = await bundleGateway(root, join(dir, "bundle"), "bench/gateway-variants.ts");
    targets = await fleet.gatewaysInOneProcess(entry, join(dir, "data"), variants, env);
  }
  console.log(`gateways: ${process.env.BENCH_PROCESSES === "separate" ? "one process each" : "one process"}; rounds ${ROUNDS} × ${ROUND_MS} ms`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const scenario of SCENARIOS) {
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const machine = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const sinkCpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      // Rotate which goes first; round -1 warms them up and is not counted.
      const shift = ((round % targets.length) + targets.length) % targets.length;
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        const spec: RequestSpec = { url: target.url, headers: target.headers, body: scenario.body, stream: scenario.stream };
        const [before, machineBefore, sinkBefore] = [cpuMsOf(target.pid), machineBusyMs(), cpuMsOf(sink.pid)];
        const result = await runForDuration(spec, scenario.concurrency, ROUND_MS);
        if (round < 0) continue;
        const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.requests);
        cpu.get(target.name)!.push(perRequest(cpuMsOf(target.pid) - before));
        machine.get(target.name)!.push(perRequest(machineBusyMs() - machineBefore));
        sinkCpu.get(target.name)!.push(perRequest(cpuMsOf(sink.pid) - sinkBefore));
        rps.get(target.name)!.push(result.rps);
      }
    }
    for (const target of targets) {
      const c = cpu.get(target.name)!;
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(
        `${scenario.name.padEnd(24)} ${target.name.padEnd(7)} req/s median ${median(rps.get(target.name)!).toFixed(0).padStart(6)}  CPU µs/req median ${median(c).toFixed(0).padStart(5)} (${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)})` +
          `  machine ${median(machine.get(target.name)!).toFixed(0)}  OTLP sink ${mean(sinkCpu.get(target.name)!).toFixed(1)}`,
      );
    }
    for (const name of ["METRICS", "ON"]) {
      // Each round's ratio to OFF's run of the same round (paired: a drift over the run weighs on both alike).
      const ratio = median(rps.get(name)!.map((value, round) => value / rps.get("OFF")![round]!));
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
