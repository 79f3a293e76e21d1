/**
 * `bun bench/ab.ts <other-checkout>`: an interleaved A/B of two trees' gateways, for changes on the hot path. Both
 * gateways (this tree's and the other checkout's bench/gateway-server.ts, bundled like `npm start`) run at once in
 * front of one simulator; short rounds of the same load alternate between them, so whatever else the machine does
 * weighs on both alike. Reports the gateway process's CPU per request (median over rounds) and req/s, per scenario.
 * All traffic goes to 127.0.0.1; every round is bounded in time, so the run stops by itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuMsOf, runForDuration, type RequestSpec } from "./load.ts";

const other = resolve(process.argv[2] ?? "");
const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1500);
const MODEL = "bench/small";
const ADMIN_KEY = "bench-admin-key";
const dir = mkdtempSync(join(tmpdir(), "gateway-ab-"));
const procs: Array<ReturnType<typeof Bun.spawn>> = [];
const watchdog = setTimeout(() => {
  for (const p of procs) p.kill("SIGKILL");
  process.exit(1);
}, 10 * 60_000);
watchdog.unref();

async function spawn(entry: string, env: Record<string, string>): Promise<{ pid: number; port: number; url?: string }> {
  const proc = Bun.spawn([process.execPath, entry], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit", ipc() {} });
  procs.push(proc);
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${entry} exited before it was ready`);
    text += new TextDecoder().decode(value);
    const line = text.split("\n").find((l) => l.includes('"ready"'));
    if (line) return { pid: proc.pid, ...(JSON.parse(line) as { port: number; url?: string }) };
  }
}

async function gateway(root: string, name: string, upstream: string) {
  const built = await Bun.build({ entrypoints: [join(root, "bench/gateway-server.ts")], target: "bun", minify: true, outdir: join(dir, name) });
  if (!built.success || !built.outputs[0]) throw new Error(`bundling ${name} failed`);
  const gwDir = join(dir, `${name}-data`);
  await Bun.write(join(gwDir, ".keep"), "");
  const child = await spawn(built.outputs[0].path, { BENCH_UPSTREAM: upstream, BENCH_DIR: gwDir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY });
  const base = `http://127.0.0.1:${child.port}/api/v1`;
  const created = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "ab" }) });
  const key = ((await created.json()) as { key: string }).key;
  return { name, pid: child.pid, url: `${base}/chat/completions`, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } };
}

const scenarios = [
  { name: "non-stream c=64", concurrency: 64, stream: false, body: { model: MODEL, messages: [{ role: "user", content: "Benchmark request, please answer [sim tokens=16]" }] } },
  { name: "stream 200 chunks c=16", concurrency: 16, stream: true, body: { model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Benchmark stream with many chunks [sim tokens=200]" }] } },
];

try {
  const sim = await spawn(join(import.meta.dir, "sim-server.ts"), {});
  const upstream = String(sim.url);
  const targets = [await gateway(other, "A (other)", upstream), await gateway(resolve(import.meta.dir, ".."), "B (this tree)", upstream)];
  for (const scenario of scenarios) {
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
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (const target of targets) {
      const c = cpu.get(target.name)!;
      console.log(`${scenario.name.padEnd(24)} ${target.name.padEnd(14)} CPU µs/req median ${median(c).toFixed(0).padStart(6)} (${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)})  req/s median ${median(rps.get(target.name)!).toFixed(0)}`);
    }
  }
} finally {
  for (const p of procs) p.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
