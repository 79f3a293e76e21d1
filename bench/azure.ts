/**
 * `bun bench/azure.ts`: what a plain request costs through the `azure` adapter against the `openai` adapter it builds
 * on (README "Azure OpenAI"). Two gateways of this tree in one process (bench/gateway-variants.ts), the same simulator
 * behind both — OPENAI with the `openai` adapter, AZURE with `azure` on the v1 URLs and the api-key header — and short
 * rounds of the same load alternating between them. Reports req/s and the process's CPU per request during each
 * gateway's rounds (medians), and AZURE's CPU against OPENAI's. All traffic stays on 127.0.0.1; rounds are bounded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bundleGateway, Fleet, SCENARIOS } from "./fleet.ts";
import { cpuMsOf, runForDuration, type RequestSpec } from "./load.ts";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 16);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "gateway-azure-"));
const fleet = new Fleet();

try {
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const entry = await bundleGateway(resolve(import.meta.dir, ".."), join(dir, "bundle"), "bench/gateway-variants.ts");
  // `name → observe[:adapter]` (gateway-variants.ts splits the joined `name:observe:adapter`).
  const targets = await fleet.gatewaysInOneProcess(entry, join(dir, "data"), { OPENAI: "::openai", AZURE: "::azure" }, { BENCH_UPSTREAM: String(sim.url) });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const scenario of SCENARIOS) {
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      // Alternate which goes first; round -1 warms both up and is not counted.
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
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
    const delta = median(cpu.get("AZURE")!) - median(cpu.get("OPENAI")!);
    console.log(`${scenario.name.padEnd(24)} AZURE − OPENAI CPU ${delta >= 0 ? "+" : ""}${delta.toFixed(0)} µs/req`);
  }
} finally {
  fleet.killAll();
  await Bun.sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
