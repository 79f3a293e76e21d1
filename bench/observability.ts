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
import { cpuMsOf, runForDuration, type RequestSpec } from "./load.ts";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1500);
const MODEL = "bench/small";
const ADMIN_KEY = "bench-admin-key";
const dir = mkdtempSync(join(tmpdir(), "gateway-observe-"));
const procs: Array<ReturnType<typeof Bun.spawn>> = [];
const watchdog = setTimeout(() => {
  for (const p of procs) p.kill("SIGKILL");
  process.exit(1);
}, 10 * 60_000);
watchdog.unref();

async function spawn(entry: string, env: Record<string, string>): Promise<{ pid: number; port: number; url?: string; proc: ReturnType<typeof Bun.spawn> }> {
  const proc = Bun.spawn([process.execPath, entry], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit", ipc() {} });
  procs.push(proc);
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${entry} exited before it was ready`);
    text += new TextDecoder().decode(value);
    const line = text.split("\n").find((l) => l.includes('"ready"'));
    if (line) {
      reader.releaseLock();
      return { pid: proc.pid, proc, ...(JSON.parse(line) as { port: number; url?: string }) };
    }
  }
}

async function gateway(entry: string, name: string, env: Record<string, string>) {
  const gwDir = join(dir, `${name}-data`);
  await Bun.write(join(gwDir, ".keep"), "");
  const child = await spawn(entry, { BENCH_DIR: gwDir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY, ...env });
  const base = `http://127.0.0.1:${child.port}/api/v1`;
  const created = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "observe" }) });
  const key = ((await created.json()) as { key: string }).key;
  return { name, pid: child.pid, url: `${base}/chat/completions`, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } };
}

const scenarios = [
  { name: "non-stream c=64", concurrency: 64, stream: false, body: { model: MODEL, messages: [{ role: "user", content: "Benchmark request, please answer [sim tokens=16]" }] } },
  { name: "stream 200 chunks c=16", concurrency: 16, stream: true, body: { model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Benchmark stream with many chunks [sim tokens=200]" }] } },
];

try {
  const built = await Bun.build({ entrypoints: [resolve(import.meta.dir, "gateway-server.ts")], target: "bun", minify: true, outdir: join(dir, "bundle") });
  if (!built.success || !built.outputs[0]) throw new Error("bundling the gateway failed");
  const entry = built.outputs.find((o) => o.kind === "entry-point")!.path;
  const sim = await spawn(join(import.meta.dir, "sim-server.ts"), {});
  const sink = await spawn(join(import.meta.dir, "otlp-sink.ts"), {});
  const upstream = String(sim.url);
  const targets = [
    await gateway(entry, "OFF", { BENCH_UPSTREAM: upstream, BENCH_OBSERVE: "off" }),
    await gateway(entry, "METRICS", { BENCH_UPSTREAM: upstream }),
    await gateway(entry, "ON", { BENCH_UPSTREAM: upstream, BENCH_OBSERVE: "on", BENCH_OTLP: String(sink.url) }),
  ];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const scenario of scenarios) {
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
  for (const p of procs) p.kill("SIGTERM");
  await Bun.sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
