/**
 * `bun bench/agent-loop.ts` (`npm run bench:agent-loop`): what the server-tool agent loop costs the gateway.
 *
 * One request declaring `tools: [{type: "service:datetime"}]` whose loop makes three model turns (two steps of the
 * instant datetime tool, then the final text answer) is compared with three plain sequential requests (no tools) to
 * the same instant upstream, whose answers are the same text. Both are chat completions, non-streamed and streamed.
 *
 *   L  one loop request (3 upstream turns)
 *   P  three plain requests, one after the other (3 upstream turns)
 *   Q  three plain requests again: an A/A control, so Q − P shows the noise level of this machine and method
 *
 * Every iteration runs L, P and Q once, in an order that cycles through all six permutations, so whatever else the
 * machine does weighs on all three alike. Per unit it records the gateway process's own CPU time (user + system,
 * every thread, read in the gateway with getrusage over IPC at µs resolution, after a 1 ms pause so the reply's
 * trailing work lands in its own unit) and the client-side wall time. The figures are per-iteration paired
 * differences, L − P (the loop's cost) and Q − P (noise), as median, p10 and p90.
 *
 * The gateway is bench/gateway-server.ts (the default pipeline: auth, limits, routing, accounting into SQLite,
 * request logging at `info`), bundled like `npm start`, in its own process; the scripted upstream
 * (bench/agent-upstream.ts) in another. All traffic goes to 127.0.0.1; every request has a timeout, every mode a
 * deadline, and a watchdog kills everything after AGENT_BENCH_WATCHDOG_MS, so a run always stops by itself.
 *
 * Knobs: AGENT_BENCH_MS (measured time per mode, default 25000), AGENT_BENCH_WARMUP (iterations per mode before
 * measuring, default 200), AGENT_BENCH_MODES (`json,stream`), AGENT_BENCH_WATCHDOG_MS (default 240000).
 * Results: a summary on stdout and bench/results/agent-loop.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuMsOf, machineBusyMs, single, type RequestSpec } from "./load.ts";

const HERE = import.meta.dir;
const MODE_MS = Number(process.env.AGENT_BENCH_MS ?? 25_000);
const WARMUP = Number(process.env.AGENT_BENCH_WARMUP ?? 200);
const MODES = (process.env.AGENT_BENCH_MODES ?? "json,stream").split(",").filter((m): m is Mode => m === "json" || m === "stream");
const WATCHDOG_MS = Number(process.env.AGENT_BENCH_WATCHDOG_MS ?? 240_000);
const MODEL = "bench/agent";
const ADMIN_KEY = "bench-admin-key-0123456789abcdef";
const SETTLE_MS = 1;

type Mode = "json" | "stream";
type Unit = "L" | "P" | "Q";
const ORDERS: Unit[][] = [
  ["L", "P", "Q"],
  ["P", "Q", "L"],
  ["Q", "L", "P"],
  ["L", "Q", "P"],
  ["Q", "P", "L"],
  ["P", "L", "Q"],
];

// ---------------------------------------------------------------------------------------------------------------
// Children: the scripted upstream and the gateway, each in its own process, asked things over IPC

interface Child {
  name: string;
  proc: ReturnType<typeof Bun.spawn>;
  pid: number;
  info: Record<string, unknown>;
  ask<T>(message: string): Promise<T>;
  output(): string;
}

const children: Child[] = [];
const dir = mkdtempSync(join(tmpdir(), "gateway-agent-bench-"));

function abandon(why: string): never {
  process.stderr.write(`agent-loop bench: ${why}; stopping\n`);
  for (const child of children) child.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => abandon(`got ${signal}`));
const watchdog = setTimeout(() => abandon(`the run took more than ${WATCHDOG_MS / 1000} s`), WATCHDOG_MS);
watchdog.unref();

async function spawnChild(name: string, entry: string, env: Record<string, string>): Promise<Child> {
  const waiting: Array<(reply: unknown) => void> = [];
  let log = "";
  const proc = Bun.spawn([process.execPath, entry], {
    cwd: join(HERE, ".."),
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    ipc(message) {
      waiting.shift()?.(message);
    },
  });
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    info: {},
    ask: <T>(message: string) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not answer ${message}`)), 10_000);
        waiting.push((reply) => {
          clearTimeout(timer);
          resolve(reply as T);
        });
        proc.send(message);
      }),
    output: () => log,
  };
  children.push(child);
  const drain = async (stream: ReadableStream<Uint8Array>, onLine?: (line: string) => void) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      log = (log + text).slice(-8000);
      if (!onLine) continue;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    }
  };
  child.info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 20 s:\n${log}`)), 20_000);
    void drain(proc.stdout as ReadableStream<Uint8Array>, (line) => {
      if (!line.startsWith('{"ready"')) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
    void drain(proc.stderr as ReadableStream<Uint8Array>);
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${log}`));
    });
  });
  return child;
}

async function stopChild(child: Child): Promise<void> {
  child.proc.kill("SIGTERM");
  const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
  if (!exited) child.proc.kill("SIGKILL");
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

interface Dist {
  median: number;
  /** 95% confidence interval of the median (order statistics n/2 ± 0.98·√n; no assumption about the shape). */
  medianCi: [number, number];
  p10: number;
  p90: number;
  mean: number;
}

function dist(values: number[]): Dist {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  const rank = (r: number) => sorted[Math.min(n - 1, Math.max(0, r))] ?? NaN;
  const medianCi: [number, number] = [rank(Math.floor(n / 2 - 0.98 * Math.sqrt(n)) - 1), rank(Math.ceil(n / 2 + 0.98 * Math.sqrt(n)) - 1)];
  return { median: at(0.5), medianCi, p10: at(0.1), p90: at(0.9), mean: sum / n };
}

const minus = (a: number[], b: number[]) => a.map((x, i) => x - b[i]!);
const signed = (ms: number) => `${ms >= 0 ? "+" : "−"}${Math.abs(ms).toFixed(2)}`;

// ---------------------------------------------------------------------------------------------------------------
// The run

interface ModeResult {
  mode: Mode;
  iterations: number;
  /** Per unit kind: gateway CPU ms and client wall ms, per iteration. */
  cpu: Record<Unit, Dist>;
  wall: Record<Unit, Dist>;
  /** Paired per-iteration differences, ms. */
  loopCpu: Dist;
  loopWall: Dist;
  noiseCpu: Dist;
  noiseWall: Dist;
  /** (L − P/3) / 2: gateway CPU of each turn after the first inside the loop (upstream call, tool run, bookkeeping). */
  extraTurnCpu: Dist;
  /** P/3: gateway CPU of one plain request, for comparison. */
  plainCpu: Dist;
  /** Busy cores of the machine outside the bench's three processes, averaged over the measured period. */
  foreignCores: number;
}

let exitCode = 0;
const results: ModeResult[] = [];
try {
  const upstream = await spawnChild("upstream", join(HERE, "agent-upstream.ts"), {});
  const built = await Bun.build({ entrypoints: [join(HERE, "agent-gateway-server.ts")], target: "bun", minify: true, outdir: join(dir, "bundle") });
  if (!built.success || !built.outputs[0]) throw new Error(`bundling the gateway failed: ${built.logs.join("\n")}`);
  const gwDir = join(dir, "gateway");
  mkdirSync(gwDir, { recursive: true });
  const gateway = await spawnChild("gateway", built.outputs[0].path, {
    BENCH_UPSTREAM: String(upstream.info.url),
    BENCH_DIR: gwDir,
    BENCH_MODEL: MODEL,
    BENCH_ADMIN_KEY: ADMIN_KEY,
  });
  const base = `http://127.0.0.1:${Number(gateway.info.port)}/api/v1`;
  const created = await fetch(`${base}/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "agent-loop-bench" }),
    signal: AbortSignal.timeout(10_000),
  });
  if (created.status !== 201 && created.status !== 200) throw new Error(`creating a key: HTTP ${created.status} ${await created.text()}`);
  const key = ((await created.json()) as { key: string }).key;
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const url = `${base}/chat/completions`;
  const messages = [{ role: "user", content: "What time is it? Answer in one sentence." }];
  const specs = (mode: Mode): Record<"loop" | "plain", RequestSpec> => {
    const stream = mode === "stream";
    const extra = stream ? { stream: true, stream_options: { include_usage: true } } : {};
    return {
      loop: { url, headers, stream, body: JSON.stringify({ model: MODEL, messages, tools: [{ type: "service:datetime" }], ...extra }) },
      plain: { url, headers, stream, body: JSON.stringify({ model: MODEL, messages, ...extra }) },
    };
  };

  // One checked loop first: two datetime calls shown, the scripted answer, three upstream turns.
  {
    const before = await upstream.ask<{ requests: number }>("count");
    const response = await fetch(url, { method: "POST", headers, body: specs("json").loop.body, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as { choices?: Array<{ message: { content: string; server_tool_calls?: Array<{ type: string; status: string }> } }> };
    const message = body.choices?.[0]?.message;
    const calls = message?.server_tool_calls ?? [];
    const after = await upstream.ask<{ requests: number }>("count");
    if (response.status !== 200 || message?.content !== upstream.info.answer || calls.length !== 2 || calls.some((c) => c.type !== "service:datetime" || c.status !== "completed") || after.requests - before.requests !== 3) {
      throw new Error(`the loop did not run as scripted (HTTP ${response.status}, ${after.requests - before.requests} upstream turns): ${JSON.stringify(body).slice(0, 400)}`);
    }
  }

  const cpuNow = async () => (await gateway.ask<{ cpuUs: number }>("cpu")).cpuUs / 1000;
  const ourCpu = () => cpuMsOf("self") + cpuMsOf(gateway.pid) + cpuMsOf(upstream.pid);

  for (const mode of MODES) {
    const spec = specs(mode);
    const countBefore = await upstream.ask<{ requests: number; toolTurns: number }>("count");
    let loopsSent = 0;
    let plainSent = 0;
    const run = async (unit: Unit): Promise<number> => {
      const started = performance.now();
      const outcomes = unit === "L" ? [await single(spec.loop)] : [await single(spec.plain), await single(spec.plain), await single(spec.plain)];
      const wall = performance.now() - started;
      if (unit === "L") loopsSent++;
      else plainSent += 3;
      const failed = outcomes.find((o) => !o.ok);
      if (failed) throw new Error(`${mode} ${unit}: ${failed.error}`);
      return wall;
    };
    const cpu: Record<Unit, number[]> = { L: [], P: [], Q: [] };
    const wall: Record<Unit, number[]> = { L: [], P: [], Q: [] };
    let last = await cpuNow();
    let busyStart = 0;
    let oursStart = 0;
    let measuredStart = 0;
    let deadline = Infinity;
    for (let i = -WARMUP; performance.now() < deadline; i++) {
      if (i === 0) {
        busyStart = machineBusyMs();
        oursStart = ourCpu();
        measuredStart = performance.now();
        deadline = measuredStart + MODE_MS;
      }
      for (const unit of ORDERS[((i % ORDERS.length) + ORDERS.length) % ORDERS.length]!) {
        const ms = await run(unit);
        await Bun.sleep(SETTLE_MS);
        const now = await cpuNow();
        if (i >= 0) {
          wall[unit].push(ms);
          cpu[unit].push(now - last);
        }
        last = now;
      }
    }
    const elapsed = performance.now() - measuredStart;
    const foreignCores = Math.max(0, machineBusyMs() - busyStart - (ourCpu() - oursStart)) / elapsed;
    const countAfter = await upstream.ask<{ requests: number; toolTurns: number }>("count");
    const turns = countAfter.requests - countBefore.requests;
    const toolTurns = countAfter.toolTurns - countBefore.toolTurns;
    if (turns !== 3 * loopsSent + plainSent || toolTurns !== 2 * loopsSent) {
      throw new Error(`${mode}: expected ${3 * loopsSent + plainSent} upstream turns (${2 * loopsSent} calling the tool), got ${turns} (${toolTurns})`);
    }
    const per = (values: Record<Unit, number[]>) => ({ L: dist(values.L), P: dist(values.P), Q: dist(values.Q) });
    results.push({
      mode,
      iterations: cpu.L.length,
      cpu: per(cpu),
      wall: per(wall),
      loopCpu: dist(minus(cpu.L, cpu.P)),
      loopWall: dist(minus(wall.L, wall.P)),
      noiseCpu: dist(minus(cpu.Q, cpu.P)),
      noiseWall: dist(minus(wall.Q, wall.P)),
      extraTurnCpu: dist(cpu.L.map((l, i) => (l - cpu.P[i]! / 3) / 2)),
      plainCpu: dist(cpu.P.map((p) => p / 3)),
      foreignCores,
    });
  }

  const out: string[] = [""];
  for (const r of results) {
    const label = r.mode === "json" ? "non-stream" : "stream";
    const f = (d: Dist) => `${d.median.toFixed(2)} (p10 ${d.p10.toFixed(2)}, p90 ${d.p90.toFixed(2)})`;
    const diff = (d: Dist) => `${signed(d.median)} ms [95% CI ${signed(d.medianCi[0])}, ${signed(d.medianCi[1])}] (p10 ${signed(d.p10)}, p90 ${signed(d.p90)}; mean ${signed(d.mean)})`;
    out.push(`${label}: ${r.iterations} iterations, other load on the machine ${r.foreignCores.toFixed(2)} cores busy`);
    out.push(`  gateway CPU ms   loop ${f(r.cpu.L)}   3 plain ${f(r.cpu.P)}   3 plain again ${f(r.cpu.Q)}`);
    out.push(`  wall ms          loop ${f(r.wall.L)}   3 plain ${f(r.wall.P)}   3 plain again ${f(r.wall.Q)}`);
    out.push(`  loop − 3 plain   CPU  ${diff(r.loopCpu)}`);
    out.push(`                   wall ${diff(r.loopWall)}`);
    out.push(`  noise (A/A)      CPU  ${diff(r.noiseCpu)}`);
    out.push(`                   wall ${diff(r.noiseWall)}`);
    out.push(`  gateway CPU of each further loop turn ${r.extraTurnCpu.median.toFixed(2)} ms (median) vs one plain request ${r.plainCpu.median.toFixed(2)} ms`);
  }
  out.push("");
  for (const r of results) {
    const label = r.mode === "json" ? "non-stream" : "stream";
    out.push(
      `agent loop (${label}): ${signed(r.loopCpu.median)} ms gateway CPU per 3-turn loop over 3 plain calls (median; p90 ${signed(r.loopCpu.p90)}); ` +
        `wall ${signed(r.loopWall.median)} ms (median; p90 ${signed(r.loopWall.p90)}); ` +
        `A/A noise: CPU ${signed(r.noiseCpu.median)} (p10 ${signed(r.noiseCpu.p10)}, p90 ${signed(r.noiseCpu.p90)}), wall ${signed(r.noiseWall.median)} (p10 ${signed(r.noiseWall.p10)}, p90 ${signed(r.noiseWall.p90)})`,
    );
  }
  const budget = results.every((r) => r.loopCpu.median <= 2 && r.loopWall.median <= 2);
  out.push(`target (loop adds ≤ 2 ms of gateway time over three plain calls, medians): ${budget ? "PASS" : "FAIL"}`, "");
  process.stdout.write(`${out.join("\n")}\n`);

  const resultsPath = join(HERE, "results", "agent-loop.json");
  mkdirSync(join(HERE, "results"), { recursive: true });
  writeFileSync(
    resultsPath,
    `${JSON.stringify({ date: new Date().toISOString(), bun: Bun.version, cores: navigator.hardwareConcurrency, modeMs: MODE_MS, warmup: WARMUP, units: "ms", results }, null, 2)}\n`,
  );
  process.stdout.write(`wrote ${resultsPath}\n`);
} catch (error) {
  process.stderr.write(`agent-loop bench failed: ${(error as Error).stack ?? String(error)}\n`);
  for (const child of children) process.stderr.write(`--- ${child.name} output (tail) ---\n${child.output()}\n`);
  exitCode = 1;
} finally {
  for (const child of [...children].reverse()) if (child.proc.exitCode === null) await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
