/**
 * `npm run bench`: one run drives the same chat-completions load at four targets and checks issue 2's
 * "Performance from day one" targets as ratios measured in that same run.
 *
 *   direct   the standalone simulator server (bench/sim-server.ts)
 *   proxy    a bare Bun pass-through proxy in front of it (bench/bare-proxy.ts): the floor of any Bun gateway
 *   relay    a minimal JavaScript relay in front of it (bench/js-relay.ts): the gateway's upstream client and SSE
 *            sink with nothing between them — the floor of any Bun gateway that reads its streams in JavaScript
 *   gateway  the gateway with its default pipeline in front of it (bench/gateway-server.ts)
 *
 * Every server runs in its own child process (memory is read per process from /proc/<pid>/status; the load
 * generator does not share their event loop). All traffic goes to 127.0.0.1; every request has a timeout and every
 * loop a deadline, so a run stops by itself. Results: a table on stdout and bench/results/latest.json.
 *
 * Scenarios (same request bytes at every target; the gateway additionally reads the bearer key):
 *   c1         non-streaming, one client, the targets interleaved request by request
 *   c64        non-streaming, 64 concurrent clients
 *   stream200  streaming, 200 chunks per reply, 16 concurrent clients (time to first byte and total)
 *   streams1k  1,000 streams opened at once, 50 chunks 40 ms apart (~2 s each): errors, RSS before / peak; then a
 *              second burst with a full GC forced while all are open, to tell live memory from uncollected garbage
 *
 * Environment knobs: BENCH_DURATION_MS (default 3000 per scenario and target), BENCH_STREAMS (default 1000),
 * BENCH_STRICT=1 (exit 1 when a target fails).
 */
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChildReply } from "./child.ts";
import {
  cpuMsOf,
  machineBusyMs,
  rssOf,
  rssSplitOf,
  runForDuration,
  sampleRss,
  single,
  startBurst,
  summarize,
  type LoadResult,
  type RequestSpec,
} from "./load.ts";

// Bun's fetch allows 256 requests in flight unless this is raised, and it is read once, before the first fetch:
// re-run this script with it set (children get it too).
const MAX_HTTP_REQUESTS = "4096";
if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS !== MAX_HTTP_REQUESTS) {
  const again = Bun.spawn([process.execPath, import.meta.path, ...process.argv.slice(2)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_HTTP_REQUESTS },
    stdio: ["inherit", "inherit", "inherit"],
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => again.kill(signal));
  process.exit(await again.exited);
}

const HERE = import.meta.dir;
const ROOT = dirname(HERE);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const MODEL = "bench/small";
const ADMIN_KEY = "bench-admin-key-0123456789abcdef";
const MB = 1_000_000;

const TARGET_NAMES = ["direct", "proxy", "relay", "gateway"] as const;
type TargetName = (typeof TARGET_NAMES)[number];
const SCENARIOS = ["c1", "c64", "stream200", "streams1k"] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const SCENARIO_LABEL: Record<ScenarioName, string> = {
  c1: "non-stream c=1",
  c64: "non-stream c=64",
  stream200: "stream 200 chunks c=16",
  streams1k: `${STREAMS} slow streams`,
};

// ---------------------------------------------------------------------------------------------------------------
// Child processes

interface Child {
  name: string;
  proc: ReturnType<typeof Bun.spawn>;
  pid: number;
  port: number;
  info: Record<string, unknown>;
  /** Asks the child to collect garbage; resolves with its memoryUsage(). */
  gc(): Promise<ChildReply>;
  output(): string;
}

async function spawnChild(name: string, script: string, env: Record<string, string>): Promise<Child> {
  // A relative name is a bench script; an absolute path is a prepared bundle.
  const entry = script.startsWith("/") ? script : join(HERE, script);
  const waiting: Array<(reply: ChildReply) => void> = [];
  let log = "";
  const keep = (text: string) => {
    log = (log + text).slice(-8000);
  };
  const proc = Bun.spawn([process.execPath, entry], {
    cwd: ROOT,
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_HTTP_REQUESTS, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    ipc(message) {
      waiting.shift()?.(message as ChildReply);
    },
  });
  // Both pipes are drained for the child's whole life, so a chatty child never blocks on a full pipe.
  const drain = async (stream: ReadableStream<Uint8Array>, onLine?: (line: string) => void) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      keep(text);
      if (!onLine) continue;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    }
  };
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 20 s:\n${log}`)), 20_000);
    void drain(proc.stdout as ReadableStream<Uint8Array>, (line) => {
      if (!line.startsWith("{")) return;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.ready === true) {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // not our line
      }
    });
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${log}`));
    });
  });
  void drain(proc.stderr as ReadableStream<Uint8Array>);
  const info = await ready;
  return {
    name,
    proc,
    pid: proc.pid,
    port: Number(info.port),
    info,
    gc: () =>
      new Promise<ChildReply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not answer gc`)), 10_000);
        waiting.push((reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        proc.send("gc");
      }),
    output: () => log,
  };
}

/** CPU used so far by this process and the server children. */
function ourCpuMs(children: Child[]): number {
  return cpuMsOf("self") + children.reduce((sum, c) => sum + cpuMsOf(c.pid), 0);
}

async function stopChild(child: Child): Promise<void> {
  child.proc.kill("SIGTERM");
  const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
  if (!exited) child.proc.kill("SIGKILL");
}

// ---------------------------------------------------------------------------------------------------------------
// Requests: the same bytes for every target, except the URL

const bodies = {
  plain: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Benchmark request, please answer [sim tokens=16]" }] }),
  stream200: JSON.stringify({
    model: MODEL,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Benchmark stream with many chunks [sim tokens=200]" }],
  }),
  slow: JSON.stringify({
    model: MODEL,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Benchmark slow stream [sim tokens=50 delay=40]" }],
  }),
};

interface Target {
  name: TargetName;
  child: Child;
  url: string;
  headers: Record<string, string>;
}

const spec = (target: Target, body: string, stream: boolean): RequestSpec => ({ url: target.url, headers: target.headers, body, stream });

// ---------------------------------------------------------------------------------------------------------------
// Measurements

interface Row extends LoadResult {
  peakRssBytes: number;
  /** CPU time of the target's server process per request, in µs (robust to a busy machine, unlike requests/s). */
  cpuUsPerRequest: number;
}

interface StreamsMemory {
  beforeRssBytes: number;
  peakRssBytes: number;
  afterGcRssBytes: number;
  peakOpen: number;
  growthBytes: number;
  growthPer1000Bytes: number;
  /** Second burst, with a full GC forced while all streams are open: what the open streams really hold. */
  liveRssBytes: number;
  liveGrowthPer1000Bytes: number;
  liveHeapUsedBytes: number;
  liveBurstErrors: number;
}

interface IdleMemory {
  startRssBytes: number;
  /** Right after warm-up and a full GC. */
  warmRssBytes: number;
  /** After the quiet period in which the gateway gives memory back (the same wait for every target). */
  idleRssBytes: number;
  /** Of idle RSS: anonymous memory, and file-backed pages (mostly the mapped Bun executable, shared and reclaimable). */
  idleAnonBytes: number;
  idleFileBytes: number;
  heapUsedBytes: number;
}

const rows = new Map<string, Row>();
const key = (scenario: ScenarioName, target: TargetName) => `${scenario}/${target}`;

async function settle(child: Child, ms = 300): Promise<ChildReply> {
  await Bun.sleep(ms);
  const reply = await child.gc();
  await Bun.sleep(ms);
  return reply;
}

const perRequestUs = (cpuMs: number, requests: number) => (requests > 0 ? (cpuMs * 1000) / requests : NaN);

async function measured(target: Target, run: () => Promise<LoadResult>): Promise<Row> {
  const sampler = sampleRss(target.child.pid, 50);
  const cpu = cpuMsOf(target.child.pid);
  const result = await run();
  const cpuUsPerRequest = perRequestUs(cpuMsOf(target.child.pid) - cpu, result.requests);
  const { peak } = sampler.stop();
  return { ...result, peakRssBytes: peak, cpuUsPerRequest };
}

/**
 * c=1 runs the targets interleaved request by request (direct, proxy, relay, gateway, direct, …), so drift on the
 * machine during the run hits all three alike; requests/s is then the closed-loop rate of one client (1 / latency).
 */
async function runInterleavedC1(targets: Target[], durationMs: number): Promise<Map<TargetName, Row>> {
  const latencies = new Map<TargetName, number[]>(targets.map((t) => [t.name, []]));
  const errors = new Map<TargetName, string[]>(targets.map((t) => [t.name, []]));
  const samplers = targets.map((t) => sampleRss(t.child.pid, 50));
  const cpu = targets.map((t) => cpuMsOf(t.child.pid));
  const deadline = performance.now() + durationMs * targets.length;
  while (performance.now() < deadline) {
    for (const target of targets) {
      const one = await single(spec(target, bodies.plain, false));
      if (one.ok) latencies.get(target.name)?.push(one.latency);
      else errors.get(target.name)?.push(one.error ?? "unknown");
    }
  }
  const out = new Map<TargetName, Row>();
  targets.forEach((target, i) => {
    const values = latencies.get(target.name) ?? [];
    const busyMs = values.reduce((a, b) => a + b, 0);
    const errs = errors.get(target.name) ?? [];
    out.set(target.name, {
      requests: values.length + errs.length,
      errors: errs.length,
      errorSamples: [...new Set(errs)].slice(0, 5),
      elapsedMs: busyMs,
      rps: values.length / (busyMs / 1000),
      latencyMs: summarize(values),
      peakInFlight: 1,
      bytesPerRequest: 0,
      peakRssBytes: samplers[i]?.stop().peak ?? NaN,
      cpuUsPerRequest: perRequestUs(cpuMsOf(target.child.pid) - (cpu[i] ?? NaN), values.length + errs.length),
    });
  });
  return out;
}

async function runStreams(target: Target): Promise<{ row: Row; memory: StreamsMemory }> {
  const before = rssOf(target.child.pid);
  const cpu = cpuMsOf(target.child.pid);
  const burst = startBurst(spec(target, bodies.slow, true), STREAMS);
  const sampler = sampleRss(target.child.pid, 20, burst.inFlight);
  const result = await burst.done;
  const cpuUsPerRequest = perRequestUs(cpuMsOf(target.child.pid) - cpu, result.requests);
  const { peak, maxContext } = sampler.stop();
  await settle(target.child);
  const afterGc = rssOf(target.child.pid);
  const growth = peak - before;
  // The same burst again, with a full GC once every stream is open (each lasts ~2 s): live memory, not garbage.
  const again = startBurst(spec(target, bodies.slow, true), STREAMS);
  await Bun.sleep(1200);
  const openNow = again.inFlight();
  const live = await target.child.gc();
  const liveRss = rssOf(target.child.pid);
  const second = await again.done;
  await settle(target.child);
  return {
    row: { ...result, peakRssBytes: peak, cpuUsPerRequest },
    memory: {
      liveRssBytes: liveRss,
      liveGrowthPer1000Bytes: openNow > 0 ? ((liveRss - afterGc) / openNow) * 1000 : NaN,
      liveHeapUsedBytes: live.heapUsed,
      liveBurstErrors: second.errors,
      beforeRssBytes: before,
      peakRssBytes: peak,
      afterGcRssBytes: afterGc,
      peakOpen: maxContext,
      growthBytes: growth,
      growthPer1000Bytes: maxContext > 0 ? (growth / maxContext) * 1000 : NaN,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "—" : v.toFixed(3));
const mb = (bytes: number) => (Number.isNaN(bytes) ? "—" : (bytes / MB).toFixed(1));
const int = (v: number) => (Number.isNaN(v) ? "—" : Math.round(v).toLocaleString("en-US"));
const signed = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "—" : `${v >= 0 ? "+" : ""}${v.toFixed(3)}`);

function table(header: string[], body: string[][], alignLeft = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < alignLeft ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// The run

const runStarted = performance.now();
const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - runStarted) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);

const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const children: Child[] = [];
let exitCode = 0;
// Never leave servers behind: on a signal, or if the run overruns its budget, stop the children and leave.
const abandon = (why: string) => {
  process.stderr.write(`bench: ${why}; stopping\n`);
  for (const child of children) child.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => abandon(`got ${signal}`));
const watchdog = setTimeout(() => abandon("the run took more than 6 minutes"), 6 * 60_000);
watchdog.unref();
try {
  log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${DURATION_MS} ms per scenario and target; temp dir ${dir}`);
  const sim = await spawnChild("simulator", "sim-server.ts", {});
  children.push(sim);
  const upstream = String(sim.info.url);
  const proxy = await spawnChild("bare proxy", "bare-proxy.ts", { BENCH_UPSTREAM: upstream });
  children.push(proxy);
  const relay = await spawnChild("js relay", "js-relay.ts", { BENCH_UPSTREAM: upstream });
  children.push(relay);
  // The gateway runs as a minified bundle, exactly as `npm start` runs server.ts (see package.json).
  const gatewayBundle = await bundleGateway(dir);
  const gw = await spawnChild("gateway", gatewayBundle, { BENCH_UPSTREAM: upstream, BENCH_DIR: dir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY });
  children.push(gw);
  const startRss = new Map<TargetName, number>([
    ["direct", rssOf(sim.pid)],
    ["proxy", rssOf(proxy.pid)],
    ["relay", rssOf(relay.pid)],
    ["gateway", rssOf(gw.pid)],
  ]);

  const gatewayBase = `http://127.0.0.1:${gw.port}/api/v1`;
  const created = await fetch(`${gatewayBase}/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench inference key" }),
  });
  if (created.status !== 201) throw new Error(`POST /keys answered ${created.status}: ${await created.text()}`);
  const inferenceKey = ((await created.json()) as { key: string }).key;
  const headers = { "content-type": "application/json", authorization: `Bearer ${inferenceKey}` };
  const targets: Target[] = [
    { name: "direct", child: sim, url: `${upstream}/chat/completions`, headers },
    { name: "proxy", child: proxy, url: `http://127.0.0.1:${proxy.port}/chat/completions`, headers },
    { name: "relay", child: relay, url: `http://127.0.0.1:${relay.port}/chat/completions`, headers },
    { name: "gateway", child: gw, url: `${gatewayBase}/chat/completions`, headers },
  ];

  // Warm-up (JIT, connection pools, SQLite statements), then idle memory after a full GC: once right away ("warm"),
  // and once the gateway has been quiet long enough to give memory back (server.idle_trim_ms, README
  // "Configuration"); every target waits the same time.
  const warmUp = async (target: Target, ms: number) => {
    const a = await runForDuration(spec(target, bodies.plain, false), 16, ms);
    const b = await runForDuration(spec(target, bodies.stream200, true), 8, ms / 2);
    if (a.errors + b.errors > 0) throw new Error(`warm-up of ${target.name} failed: ${[...a.errorSamples, ...b.errorSamples].join("; ")}`);
  };
  const idle = new Map<TargetName, IdleMemory>();
  for (const target of targets) {
    log(`warm-up ${target.name}`);
    await warmUp(target, 1500);
  }
  const warmRss = new Map<TargetName, number>();
  for (const target of targets) {
    await settle(target.child, 500);
    warmRss.set(target.name, rssOf(target.child.pid));
  }
  const trimMs = Number(gw.info.idleTrimMs ?? 0);
  if (trimMs > 0) {
    // The trimmer checks four times per period: quiet for idleTrimMs, it trims within another quarter of it.
    const wait = trimMs * 1.25 + 1000;
    log(`idle: waiting ${(wait / 1000).toFixed(1)} s (gateway server.idle_trim_ms = ${trimMs})`);
    await Bun.sleep(wait);
  }
  for (const target of targets) {
    const reply = await settle(target.child, 300);
    const split = rssSplitOf(target.child.pid);
    idle.set(target.name, {
      startRssBytes: startRss.get(target.name) ?? NaN,
      warmRssBytes: warmRss.get(target.name) ?? NaN,
      idleRssBytes: rssOf(target.child.pid),
      idleAnonBytes: split.anon,
      idleFileBytes: split.file,
      heapUsedBytes: reply.heapUsed,
    });
  }
  // Other processes on the machine skew every figure: measure how busy the machine was outside this bench.
  const window = { wall: performance.now(), busy: machineBusyMs(), ours: ourCpuMs(children) };

  // 1,000 concurrent slow streams first, so "before" is the idle process.
  const streamsMemory = new Map<TargetName, StreamsMemory>();
  for (const target of targets) {
    // Warm again right before: this measures memory per open stream from a warm process, not a re-warm-up after
    // the idle trim (and the other targets' bursts take longer than the gateway's quiet period).
    log(`re-warm ${target.name}`);
    await warmUp(target, 750);
    await settle(target.child, 300);
    log(`${SCENARIO_LABEL.streams1k}: ${target.name}`);
    const { row, memory } = await runStreams(target);
    rows.set(key("streams1k", target.name), row);
    streamsMemory.set(target.name, memory);
  }

  log(`non-stream c=1 (interleaved): ${targets.map((t) => t.name).join(", ")}`);
  for (const [name, row] of await runInterleavedC1(targets, DURATION_MS)) rows.set(key("c1", name), row);
  for (const target of targets) {
    log(`non-stream c=64: ${target.name}`);
    rows.set(key("c64", target.name), await measured(target, () => runForDuration(spec(target, bodies.plain, false), 64, DURATION_MS)));
    await Bun.sleep(200);
  }
  for (const target of targets) {
    log(`stream 200 chunks c=16: ${target.name}`);
    rows.set(key("stream200", target.name), await measured(target, () => runForDuration(spec(target, bodies.stream200, true), 16, DURATION_MS)));
    await Bun.sleep(200);
  }

  const wallMs = performance.now() - window.wall;
  const foreignMs = machineBusyMs() - window.busy - (ourCpuMs(children) - window.ours);
  const foreignShare = Math.max(0, foreignMs / (wallMs * navigator.hardwareConcurrency));

  // Stop the gateway first so its request log and usage ledger are flushed, then count what it wrote.
  await stopChild(gw);
  let logLines = NaN;
  let generations = NaN;
  try {
    logLines = readFileSync(join(dir, "gateway.log"), "utf8").split("\n").filter((l) => l.includes('"msg":"request"')).length;
  } catch {
    // no log file
  }
  try {
    const db = new Database(join(dir, "gateway.db"), { readonly: true });
    generations = (db.query("select count(*) as n from generations").get() as { n: number }).n;
    db.close();
  } catch {
    // no database
  }

  // ------------------------------------------------------------------ report
  const row = (s: ScenarioName, t: TargetName) => rows.get(key(s, t));
  const body: string[][] = [];
  for (const scenario of SCENARIOS) {
    const direct = row(scenario, "direct");
    for (const target of TARGET_NAMES) {
      const r = row(scenario, target);
      if (!r) continue;
      const stream = scenario === "stream200" || scenario === "streams1k";
      body.push([
        SCENARIO_LABEL[scenario],
        target,
        int(r.rps),
        ms(r.latencyMs.p50),
        ms(r.latencyMs.p99),
        target === "direct" ? "" : signed(r.latencyMs.p50 - (direct?.latencyMs.p50 ?? NaN)),
        stream ? ms(r.ttfbMs?.p50) : "",
        stream ? ms(r.ttfbMs?.p99) : "",
        `${r.errors}/${r.requests}`,
        int(r.cpuUsPerRequest),
        mb(r.peakRssBytes),
      ]);
    }
  }
  const out: string[] = [];
  out.push("");
  out.push(`Chat-completions load, ${Bun.version} on ${navigator.hardwareConcurrency} cores (latencies in ms, memory in MB = 10^6 bytes)`);
  out.push("");
  out.push(table(["scenario", "target", "req/s", "p50", "p99", "+p50 vs direct", "TTFB p50", "TTFB p99", "errors", "CPU µs/req", "peak RSS"], body));
  out.push("");
  out.push(
    table(
      ["RSS (MB)", "at start", "warm", "idle", "anon", "file", "JS heap", `before ${STREAMS}`, "peak", "open", "growth/1000", "after, GC", "live/1000 (GC'd)"],
      TARGET_NAMES.map((t) => {
        const i = idle.get(t);
        const s = streamsMemory.get(t);
        return [
          t,
          mb(i?.startRssBytes ?? NaN),
          mb(i?.warmRssBytes ?? NaN),
          mb(i?.idleRssBytes ?? NaN),
          mb(i?.idleAnonBytes ?? NaN),
          mb(i?.idleFileBytes ?? NaN),
          mb(i?.heapUsedBytes ?? NaN),
          mb(s?.beforeRssBytes ?? NaN),
          mb(s?.peakRssBytes ?? NaN),
          int(s?.peakOpen ?? NaN),
          mb(s?.growthPer1000Bytes ?? NaN),
          mb(s?.afterGcRssBytes ?? NaN),
          mb(s?.liveGrowthPer1000Bytes ?? NaN),
        ];
      }),
      1,
    ),
  );
  out.push(
    "warm = right after warm-up and a full GC; idle = after a further quiet period long enough for the gateway's idle trim " +
      "(anon + file; file is mostly the mapped Bun executable); growth/1000 = (peak − before) " +
      "per 1,000 open streams; live/1000 = RSS with all streams open right after a forced GC, minus the idle RSS after the first burst. " +
      "direct is the simulator process, which is also the upstream of proxy, relay and gateway.",
  );
  out.push("");
  out.push(`gateway wrote ${int(logLines)} request log lines and ${int(generations)} generation records`);
  out.push(
    `other processes used ${(foreignShare * 100).toFixed(0)}% of the machine's CPU during the measurements` +
      (foreignShare > 0.1 ? " — the machine was busy: absolute figures are pessimistic, compare CPU µs/req" : ""),
  );

  const gwC64 = row("c64", "gateway")?.rps ?? NaN;
  const pxC64 = row("c64", "proxy")?.rps ?? NaN;
  const gwC1 = row("c1", "gateway")?.latencyMs.p50 ?? NaN;
  const dC1 = row("c1", "direct")?.latencyMs.p50 ?? NaN;
  const pC1 = row("c1", "proxy")?.latencyMs.p50 ?? NaN;
  const gwStreams = row("streams1k", "gateway");
  const gwMem = streamsMemory.get("gateway");
  const gwIdle = idle.get("gateway")?.idleRssBytes ?? NaN;
  const checks = [
    {
      id: "throughput_c64",
      pass: gwC64 / pxC64 >= 1 / 3,
      text: `throughput at c=64: gateway ${int(gwC64)} req/s / bare proxy ${int(pxC64)} req/s = ${(gwC64 / pxC64).toFixed(3)} (target ≥ 0.333)`,
      value: gwC64 / pxC64,
    },
    {
      id: "added_p50_c1",
      pass: gwC1 - dC1 <= 0.3,
      text: `added p50 at c=1: gateway − direct = ${(gwC1 - dC1).toFixed(3)} ms (target ≤ 0.300); gateway − proxy = ${(gwC1 - pC1).toFixed(3)} ms, proxy − direct = ${(pC1 - dC1).toFixed(3)} ms`,
      value: gwC1 - dC1,
    },
    {
      id: "streams_1k",
      pass:
        gwStreams !== undefined &&
        gwStreams.errors === 0 &&
        gwMem?.liveBurstErrors === 0 &&
        gwStreams.requests === STREAMS &&
        (gwMem?.growthPer1000Bytes ?? NaN) <= 25 * MB,
      text: `${STREAMS} concurrent streams: ${gwStreams?.errors ?? "?"} errors of ${gwStreams?.requests ?? "?"} (second burst: ${gwMem?.liveBurstErrors ?? "?"}), peak ${int(gwMem?.peakOpen ?? NaN)} open, RSS growth ${mb(gwMem?.growthPer1000Bytes ?? NaN)} MB per 1,000 open streams (target 0 errors, ≤ 25 MB; floors in this run: bare proxy ${mb(streamsMemory.get("proxy")?.growthPer1000Bytes ?? NaN)}, js relay ${mb(streamsMemory.get("relay")?.growthPer1000Bytes ?? NaN)})`,
      value: gwMem?.growthPer1000Bytes ?? NaN,
    },
    { id: "idle_memory", pass: gwIdle <= 70 * MB, text: `idle memory: gateway RSS ${mb(gwIdle)} MB after warm-up, a quiet period and GC (${mb(idle.get("gateway")?.warmRssBytes ?? NaN)} MB right after warm-up; target ≤ 70 MB)`, value: gwIdle },
  ];
  out.push("");
  out.push("Targets (issue 2, \"Performance from day one\"), measured in this run:");
  for (const check of checks) out.push(`  [${check.pass ? "PASS" : "FAIL"}] ${check.text}`);
  const errorLines = [...rows].filter(([, r]) => r.errors > 0).map(([k, r]) => `  ${k}: ${r.errorSamples.join("; ")}`);
  if (errorLines.length > 0) out.push("", "Errors:", ...errorLines);
  out.push("");
  process.stdout.write(`${out.join("\n")}\n`);

  const resultsPath = join(HERE, "results", "latest.json");
  mkdirSync(dirname(resultsPath), { recursive: true });
  writeFileSync(
    resultsPath,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        bun: Bun.version,
        cores: navigator.hardwareConcurrency,
        durationMsPerScenario: DURATION_MS,
        streams: STREAMS,
        units: { latency: "ms", memory: "bytes", rps: "requests/s" },
        scenarios: Object.fromEntries(SCENARIOS.map((s) => [s, Object.fromEntries(TARGET_NAMES.map((t) => [t, row(s, t) ?? null]))])),
        memory: { idle: Object.fromEntries(idle), streams: Object.fromEntries(streamsMemory) },
        foreignCpuShare: foreignShare,
        gateway: { requestLogLines: logLines, generationRecords: generations },
        targets: checks.map(({ id, pass, value, text }) => ({ id, pass, value, text })),
        runSeconds: (performance.now() - runStarted) / 1000,
      },
      null,
      2,
    )}\n`,
  );
  log(`wrote ${resultsPath}; whole run ${((performance.now() - runStarted) / 1000).toFixed(1)} s`);
  if (process.env.BENCH_STRICT === "1" && checks.some((c) => !c.pass)) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  for (const child of children) process.stderr.write(`--- ${child.name} output (tail) ---\n${child.output()}\n`);
  exitCode = 1;
} finally {
  for (const child of children.reverse()) if (child.proc.exitCode === null) await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

/** Bundles bench/gateway-server.ts the way `npm start` bundles server.ts, so the bench measures what users run. */
async function bundleGateway(dir: string): Promise<string> {
  const built = await Bun.build({ entrypoints: [join(HERE, "gateway-server.ts")], target: "bun", minify: true, outdir: join(dir, "bundle") });
  const output = built.outputs[0];
  if (!built.success || !output) throw new Error(`bench: bundling the gateway failed: ${built.logs.join("\n")}`);
  return output.path;
}
