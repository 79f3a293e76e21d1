/**
 * `npm run bench`: one run drives the same chat-completions load at every target and checks the speed targets as
 * ratios measured in that same run (README "Performance"; the targets and their arithmetic: bench/checks.ts).
 *
 *   direct   the instant mock upstream alone: the standalone simulator server (bench/sim-server.ts)
 *   proxy    a bare Bun pass-through proxy in front of it (bench/bare-proxy.ts): the floor of any Bun gateway
 *   relay    a minimal JavaScript relay in front of it (bench/js-relay.ts): the gateway's upstream client and SSE
 *            sink with nothing between them — the floor of any Bun gateway that reads its streams in JavaScript
 *   gateway  the gateway with its default pipeline (bench/gateway-server.ts), run from a minified bundle as `npm start`
 *   portkey  Portkey's gateway from the npm registry (bench/portkey.ts), when it can be installed and run
 *
 * The servers under test (proxy, relay, gateway, Portkey) are pinned to one core (`BENCH_CORE`, default 1) with
 * taskset when it exists, so each gets the same one core whatever the machine has; the simulator and the load
 * generator are not pinned (`BENCH_LOADGEN_CORES` pins them, e.g. to 0: on 2 cores they then cap the bare proxy's
 * throughput, which flatters the ratios to it). Every server runs in its own child process (memory is read per process from /proc/<pid>/status). All traffic goes to 127.0.0.1; every
 * request has a timeout and every loop a deadline, and a watchdog ends the run, so it stops by itself.
 *
 * Scenarios (same request bytes at every target, bench/requests.ts):
 *   c1       non-streamed, one client, the targets interleaved request by request: added p50 over direct
 *   c64      non-streamed, 64 clients
 *   burst    many short streams (16 chunks), 64 clients
 *   long     long streams (200 chunks, sent as fast as the relay takes them), 16 clients: CPU per chunk
 *   streams  BENCH_STREAMS (default 5,000) streams opened at once, 10 chunks 200 ms apart: errors, p99 total time, RSS
 *            growth per 1,000 open; then, for the gateway, a second burst with a full GC forced while they are open
 *            (live memory; Portkey only with BENCH_PORTKEY_STREAMS=1: it takes half a minute)
 * c64, burst and long run in rounds rotating between the targets (bench/rounds.ts). Then the feature costs, in one
 * gateway process of their own (bench/feature-cost.ts): metrics and tracing, a limited and guarded key, and the
 * multi-node deployment on Postgres and Redis (bench/shared-stores.ts).
 *
 * Knobs: BENCH_DURATION_MS (per scenario and target, default 3000), BENCH_ROUNDS (default 3), BENCH_STREAMS,
 * BENCH_FEATURE_ROUNDS (default 6) and BENCH_FEATURE_ROUND_MS (default 1000), BENCH_CORE / BENCH_LOADGEN_CORES (empty:
 * no pinning), BENCH_PORTKEY=0 (leave Portkey out), BENCH_PORTKEY_STREAMS=1 (Portkey in the streams burst too: slow),
 * BENCH_MULTI_NODE=0, BENCH_STRICT=1 (exit 1 when a measured target fails). Results: a table on stdout and
 * bench/results/latest.json.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checks as targetChecks, type Check, type Row, type StreamsMemory, type TargetName } from "./checks.ts";
import { pinned, spawnChild, stopChild, type Child, type SpawnOptions } from "./child-process.ts";
import type { ChildReply } from "./child.ts";
import { measureFeatureCost, type FeatureCost } from "./feature-cost.ts";
import { cpuMsOf, ensureMaxHttpRequests, machineBusyMs, rssOf, rssSplitOf, runForDuration, sampleRss, single, startBurst, summarize, type RequestSpec } from "./load.ts";
import { portkeyHeaders, preparePortkey, type PortkeyInstall } from "./portkey.ts";
import { BODIES, countEvents, MODEL } from "./requests.ts";
import { rotate } from "./rounds.ts";
import { prepareSharedStores, type SharedStores } from "./shared-stores.ts";

// Enough fetches in flight for the burst of streams (the children get it too), the load generator on its cores.
const MAX_HTTP_REQUESTS = "16384";
// The machine's cores (os.cpus() lists them all; navigator.hardwareConcurrency counts only this process's affinity).
const CORES = cpus().length;
const SERVER_CORE = process.env.BENCH_CORE ?? (CORES > 1 ? "1" : "");
const LOADGEN_CORES = process.env.BENCH_LOADGEN_CORES ?? "";
await ensureMaxHttpRequests(MAX_HTTP_REQUESTS, { BENCH_CORE: SERVER_CORE, BENCH_LOADGEN_CORES: LOADGEN_CORES }, (command) => pinned(command, LOADGEN_CORES));

const HERE = import.meta.dir;
const ROOT = dirname(HERE);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
const ADMIN_KEY = "bench-admin-key-0123456789abcdef";
const MB = 1_000_000;
const WATCHDOG_MS = 12 * 60_000;

const SCENARIOS = ["c1", "c64", "burst", "long", "streams"] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const SCENARIO_LABEL: Record<ScenarioName, string> = {
  c1: "non-stream c=1",
  c64: "non-stream c=64",
  burst: "stream burst (16 chunks) c=64",
  long: "long stream (200 chunks) c=16",
  streams: `${STREAMS.toLocaleString("en-US")} streams (10 × 200 ms)`,
};

interface Target {
  name: TargetName;
  child: Child;
  url: string;
  headers: Record<string, string>;
}

interface IdleMemory {
  startRssBytes: number;
  /** Right after warm-up and a full GC. */
  warmRssBytes: number;
  /** After the quiet period in which the gateway gives memory back (the same wait for every target). */
  idleRssBytes: number;
  /** Of idle RSS: anonymous memory, and file-backed pages (mostly the mapped executable, shared and reclaimable). */
  idleAnonBytes: number;
  idleFileBytes: number;
  heapUsedBytes: number;
}

const spec = (target: Target, body: string, stream: boolean): RequestSpec => ({ url: target.url, headers: target.headers, body, stream });
const rows = new Map<string, Row>();
const key = (scenario: ScenarioName, target: TargetName) => `${scenario}/${target}`;
const perRequestUs = (cpuMs: number, requests: number) => (requests > 0 ? (cpuMs * 1000) / requests : NaN);

async function settle(child: Child, ms = 300): Promise<ChildReply> {
  await Bun.sleep(ms);
  const reply = await child.gc();
  await Bun.sleep(ms);
  return reply;
}

/**
 * c=1 runs the targets interleaved request by request (direct, proxy, relay, gateway, …), so drift on the machine
 * during the run hits all alike; req/s is then the closed-loop rate of one client (1 / latency).
 */
async function runInterleavedC1(targets: Target[], durationMs: number): Promise<Map<TargetName, Row>> {
  const latencies = new Map<TargetName, number[]>(targets.map((t) => [t.name, []]));
  const errors = new Map<TargetName, string[]>(targets.map((t) => [t.name, []]));
  const samplers = targets.map((t) => sampleRss(t.child.pid, 50));
  const cpu = targets.map((t) => cpuMsOf(t.child.pid));
  const deadline = performance.now() + durationMs * targets.length;
  while (performance.now() < deadline) {
    for (const target of targets) {
      const one = await single(spec(target, BODIES.plain, false));
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

/** The burst of slow streams; with `live`, a second one with a full GC forced while all are open. */
async function runStreams(target: Target, live: boolean): Promise<{ row: Row; memory: StreamsMemory }> {
  const before = rssOf(target.child.pid);
  const cpu = cpuMsOf(target.child.pid);
  const burst = startBurst(spec(target, BODIES.slow, true), STREAMS);
  const sampler = sampleRss(target.child.pid, 20, burst.open);
  const result = await burst.done;
  const cpuUsPerRequest = perRequestUs(cpuMsOf(target.child.pid) - cpu, result.requests);
  const { peak, maxContext } = sampler.stop();
  await settle(target.child);
  const afterGc = rssOf(target.child.pid);
  const growth = peak - before;
  const memory: StreamsMemory = {
    beforeRssBytes: before,
    peakRssBytes: peak,
    afterGcRssBytes: afterGc,
    peakOpen: maxContext,
    growthBytes: growth,
    growthPer1000Bytes: maxContext > 0 ? (growth / maxContext) * 1000 : NaN,
  };
  if (live) {
    // The same burst again, with a full GC once every stream is open (each lasts ~2 s): live memory, not garbage.
    const again = startBurst(spec(target, BODIES.slow, true), STREAMS);
    const deadline = performance.now() + 1500;
    while (again.open() < STREAMS && performance.now() < deadline) await Bun.sleep(20);
    const openNow = again.open();
    // Per 1,000 only when most are open at once: a few open, extrapolated, say nothing.
    const enough = openNow >= STREAMS / 2;
    const reply = await target.child.gc();
    const liveRss = rssOf(target.child.pid);
    const second = await again.done;
    await settle(target.child);
    Object.assign(memory, {
      liveRssBytes: liveRss,
      liveOpen: openNow,
      liveGrowthPer1000Bytes: enough ? ((liveRss - afterGc) / openNow) * 1000 : NaN,
      liveHeapUsedBytes: reply.heapUsed,
      liveBurstErrors: second.errors,
    });
  }
  return { row: { ...result, peakRssBytes: peak, cpuUsPerRequest }, memory };
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "—" : v.toFixed(3));
const mb = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? "—" : (bytes / MB).toFixed(1));
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "—");
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
let stores: SharedStores | { skip: string } = { skip: "not prepared" };
let exitCode = 0;
// Never leave servers behind: on a signal, or if the run overruns its budget, stop the children and leave.
const abandon = (why: string) => {
  process.stderr.write(`bench: ${why}; stopping\n`);
  for (const child of children) child.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  const drop = "drop" in stores ? stores.drop() : Promise.resolve();
  void Promise.race([drop, Bun.sleep(3000)]).finally(() => process.exit(1));
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => abandon(`got ${signal}`));
const watchdog = setTimeout(() => abandon(`the run took more than ${WATCHDOG_MS / 60_000} minutes`), WATCHDOG_MS);
watchdog.unref();

/** Starts a bench child: a Bun script of bench/, a bundle (absolute path), or a prepared command; `pin` for servers. */
async function launch(name: string, entry: string | Pick<SpawnOptions, "command" | "cwd" | "serialization">, env: Record<string, string>, pin: boolean): Promise<Child> {
  const base = typeof entry === "string" ? { command: [process.execPath, entry.startsWith("/") ? entry : join(HERE, entry)], cwd: ROOT } : entry;
  const child = await spawnChild(name, {
    ...base,
    command: pinned(base.command, pin ? SERVER_CORE : LOADGEN_CORES),
    env: { BUN_CONFIG_MAX_HTTP_REQUESTS: MAX_HTTP_REQUESTS, ...env },
    startTimeoutMs: 30_000,
  });
  children.push(child);
  return child;
}

/** Bundles a bench entry the way `npm start` bundles server.ts (minified, for Bun), so the bench measures what users run. */
async function bundle(entryFile: string, outdir: string): Promise<string> {
  const built = await Bun.build({ entrypoints: [join(ROOT, entryFile)], target: "bun", minify: true, outdir });
  const output = built.outputs.find((o) => o.kind === "entry-point");
  if (!built.success || !output) throw new Error(`bench: bundling ${entryFile} failed: ${built.logs.join("\n")}`);
  return output.path;
}

try {
  const loadAtStart = loadavg();
  log(
    `bun ${Bun.version}, ${CORES} cores, load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}; servers under test on core ${SERVER_CORE || "(not pinned)"}, ` +
      `simulator and load generator on ${LOADGEN_CORES || "(not pinned)"}; ${DURATION_MS} ms per scenario and target in ${ROUNDS} rounds; temp dir ${dir}`,
  );
  const portkeyInstall: PortkeyInstall | { skip: string } = await preparePortkey(join(HERE, ".peers"), log);
  stores = await prepareSharedStores();

  const sim = await launch("simulator", "sim-server.ts", {}, false);
  const upstream = String(sim.info.url);
  const proxy = await launch("bare proxy", "bare-proxy.ts", { BENCH_UPSTREAM: upstream }, true);
  const relay = await launch("js relay", "js-relay.ts", { BENCH_UPSTREAM: upstream }, true);
  const gw = await launch("gateway", await bundle("bench/gateway-server.ts", join(dir, "bundle")), { BENCH_UPSTREAM: upstream, BENCH_DIR: dir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY }, true);
  let portkey: Child | undefined;
  let portkeyNote = "skip" in portkeyInstall ? `not measured: ${portkeyInstall.skip}` : "";
  if (!("skip" in portkeyInstall)) {
    try {
      portkey = await launch("portkey", portkeyInstall.spawn, {}, true);
      portkeyNote = `@portkey-ai/gateway ${portkeyInstall.version} on ${await nodeVersion()}`;
    } catch (error) {
      portkeyNote = `not measured: it did not start (${(error as Error).message.split("\n")[0]})`;
    }
  }

  const created = await fetch(`http://127.0.0.1:${gw.port}/api/v1/keys`, {
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
    { name: "gateway", child: gw, url: `http://127.0.0.1:${gw.port}/api/v1/chat/completions`, headers },
  ];
  if (portkey) targets.push({ name: "portkey", child: portkey, url: `http://127.0.0.1:${portkey.port}/v1/chat/completions`, headers: portkeyHeaders(upstream) });
  const startRss = new Map<TargetName, number>(targets.map((t) => [t.name, rssOf(t.child.pid)]));

  // One long stream from the upstream: how many events a long stream has (the same for every target).
  const sample = await fetch(targets[0]!.url, { method: "POST", headers, body: BODIES.long });
  const longStreamEvents = countEvents(await sample.text());

  // Warm-up (JIT, connection pools, SQLite statements), then idle memory after a full GC: once right away ("warm"),
  // and once the gateway has been quiet long enough to give memory back (server.idle_trim_ms, README
  // "Configuration"); every target waits the same time.
  const warmUp = async (target: Target, ms: number) => {
    const a = await runForDuration(spec(target, BODIES.plain, false), 16, ms);
    const b = await runForDuration(spec(target, BODIES.long, true), 8, ms / 2);
    if (a.errors + b.errors > 0) throw new Error(`warm-up of ${target.name} failed: ${[...a.errorSamples, ...b.errorSamples].join("; ")}`);
  };
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
  const idle = new Map<TargetName, IdleMemory>();
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
  const window = { wall: performance.now(), busy: machineBusyMs(), ours: ourCpuMs() };

  // The burst of concurrent streams first, so "before" is the idle process.
  const streamsMemory = new Map<TargetName, StreamsMemory>();
  for (const target of targets) {
    if (target.name === "portkey" && process.env.BENCH_PORTKEY_STREAMS !== "1") continue;
    // Warm again right before: this measures memory per open stream from a warm process, not a re-warm-up after
    // the idle trim (and the other targets' bursts take longer than the gateway's quiet period).
    log(`re-warm ${target.name}`);
    await warmUp(target, 750);
    await settle(target.child, 300);
    log(`${SCENARIO_LABEL.streams}: ${target.name}`);
    // The second, live-memory burst only for the gateway: it is what the heap figures are about, and bursts are slow.
    const { row, memory } = await runStreams(target, target.name === "gateway");
    rows.set(key("streams", target.name), row);
    streamsMemory.set(target.name, memory);
  }

  log(`${SCENARIO_LABEL.c1} (interleaved): ${targets.map((t) => t.name).join(", ")}`);
  for (const [name, row] of await runInterleavedC1(targets, DURATION_MS)) rows.set(key("c1", name), row);
  for (const [scenario, body, stream, concurrency] of [
    ["c64", BODIES.plain, false, 64],
    ["burst", BODIES.burst, true, 64],
    ["long", BODIES.long, true, 16],
  ] as const) {
    log(`${SCENARIO_LABEL[scenario]}: ${ROUNDS} rounds rotating ${targets.map((t) => t.name).join(", ")}`);
    const results = await rotate(
      targets.map((t) => ({ name: t.name, pid: t.child.pid, spec: spec(t, body, stream) })),
      concurrency,
      ROUNDS,
      DURATION_MS / ROUNDS,
    );
    for (const [name, result] of results) rows.set(key(scenario, name as TargetName), result);
  }
  const wallMs = performance.now() - window.wall;
  const foreignMs = machineBusyMs() - window.busy - (ourCpuMs() - window.ours);
  const foreignShare = Math.max(0, foreignMs / (wallMs * CORES));

  let features: FeatureCost | undefined;
  try {
    features = await measureFeatureCost({
      dir,
      upstream,
      adminKey: ADMIN_KEY,
      launch: (name, entry, env, pin) => launch(name, entry, env, pin),
      bundle,
      stores,
      rounds: Number(process.env.BENCH_FEATURE_ROUNDS ?? 6),
      roundMs: Number(process.env.BENCH_FEATURE_ROUND_MS ?? 1000),
      log,
    });
  } catch (error) {
    log(`feature cost phase failed: ${(error as Error).stack ?? String(error)}`);
  }
  const loadAtEnd = loadavg();

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
  const row = (s: string, t: TargetName) => rows.get(`${s}/${t}`);
  const names = targets.map((t) => t.name);
  const body: string[][] = [];
  for (const scenario of SCENARIOS) {
    const direct = row(scenario, "direct");
    for (const target of names) {
      const r = row(scenario, target);
      if (!r) continue;
      const stream = scenario !== "c1" && scenario !== "c64";
      const perChunk = scenario === "long" ? (r.cpuUsPerRequest / longStreamEvents).toFixed(2) : "";
      body.push([
        SCENARIO_LABEL[scenario],
        target,
        int(r.rps),
        ms(r.latencyMs.p50),
        ms(r.latencyMs.p99),
        target === "direct" ? "" : signed(r.latencyMs.p50 - (direct?.latencyMs.p50 ?? NaN)),
        stream ? ms(r.ttfbMs?.p50) : "",
        `${r.errors}/${r.requests}`,
        int(r.cpuUsPerRequest),
        perChunk,
        mb(r.peakRssBytes),
      ]);
    }
  }
  const checks: Check[] = targetChecks({ row, streams: streamsMemory, longStreamEvents, features, portkey: portkeyNote });
  const out: string[] = [];
  out.push("");
  out.push(`Chat-completions load, Bun ${Bun.version} on ${CORES} cores (latencies in ms, memory in MB = 10^6 bytes)`);
  out.push(
    `Conditions: load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")} at the start, ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")} at the end; ` +
      `other processes used ${(foreignShare * 100).toFixed(0)}% of the machine's CPU during the main scenarios` +
      (foreignShare > 0.1 ? " (busy: absolute figures are pessimistic; ratios and CPU µs/req hold better)" : ""),
  );
  out.push(`Servers under test pinned to core ${SERVER_CORE || "— (no taskset)"}; simulator and load generator on ${LOADGEN_CORES || "—"}. Portkey: ${portkeyNote}.`);
  out.push("");
  out.push(table(["scenario", "target", "req/s", "p50", "p99", "+p50 vs direct", "TTFB p50", "errors", "CPU µs/req", "µs/chunk", "peak RSS"], body));
  out.push("");
  out.push(
    table(
      ["RSS (MB)", "at start", "warm", "idle", "anon", "file", "JS heap", "before burst", "peak", "open", "growth/1000", "after, GC", "open at GC", "live/1000 (GC'd)"],
      names.map((t) => {
        const i = idle.get(t);
        const s = streamsMemory.get(t);
        return [
          t,
          mb(i?.startRssBytes),
          mb(i?.warmRssBytes),
          mb(i?.idleRssBytes),
          mb(i?.idleAnonBytes),
          mb(i?.idleFileBytes),
          mb(i?.heapUsedBytes),
          mb(s?.beforeRssBytes),
          mb(s?.peakRssBytes),
          int(s?.peakOpen ?? NaN),
          mb(s?.growthPer1000Bytes),
          mb(s?.afterGcRssBytes),
          int(s?.liveOpen ?? NaN),
          mb(s?.liveGrowthPer1000Bytes),
        ];
      }),
      1,
    ),
  );
  out.push(
    "warm = right after warm-up and a full GC; idle = after a further quiet period long enough for the gateway's idle trim " +
      "(anon + file; file is mostly the mapped executable); growth/1000 = (peak − before) per 1,000 open streams; " +
      "live/1000 = a second burst (gateway only): RSS right after a forced GC with `open at GC` streams open, minus the RSS after the first burst and a GC, per 1,000 (shown when at least half were open). " +
      "direct is the simulator process, which is also the upstream of every other target.",
  );
  if (features) {
    out.push("");
    out.push("Feature costs (one gateway process, arms in rotating rounds; bench/feature-cost.ts):");
    const fbody: string[][] = [];
    for (const [scenario, arms] of Object.entries(features.scenarios)) {
      for (const [arm, r] of Object.entries(arms)) fbody.push([scenario, arm, int(r.rps), ms(r.latencyMs.p50), ms(r.latencyMs.p99), `${r.errors}/${r.requests}`, int(r.cpuUsPerRequest)]);
    }
    out.push(table(["scenario", "arm", "req/s", "p50", "p99", "errors", "CPU µs/req"], fbody));
    out.push(`multi-node: ${features.multiNode}`);
  }
  out.push("");
  out.push(`gateway wrote ${int(logLines)} request log lines and ${int(generations)} generation records`);
  out.push("");
  out.push("Targets, measured in this run:");
  for (const check of checks) out.push(`  [${check.pass === null ? "N/A " : check.pass ? "MET " : "MISS"}] ${check.text}`);
  const measured = checks.filter((c) => c.pass !== null);
  out.push(`  ${measured.filter((c) => c.pass).length} of ${measured.length} measured targets met; ${checks.length - measured.length} not measured`);
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
        cores: CORES,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        foreignCpuShare: foreignShare,
        pinning: { servers: SERVER_CORE, loadGenerator: LOADGEN_CORES },
        durationMsPerScenario: DURATION_MS,
        rounds: ROUNDS,
        streams: STREAMS,
        longStreamEvents,
        portkey: portkeyNote,
        units: { latency: "ms", memory: "bytes", rps: "requests/s", cpu: "µs per request" },
        scenarios: Object.fromEntries(SCENARIOS.map((s) => [s, Object.fromEntries(names.map((t) => [t, row(s, t) ?? null]))])),
        memory: { idle: Object.fromEntries(idle), streams: Object.fromEntries(streamsMemory) },
        features: features ?? null,
        gateway: { requestLogLines: logLines, generationRecords: generations },
        targets: checks,
        runSeconds: (performance.now() - runStarted) / 1000,
      },
      (_, value) => (typeof value === "number" && !Number.isFinite(value) ? null : value),
      2,
    )}\n`,
  );
  log(`wrote ${resultsPath}; whole run ${((performance.now() - runStarted) / 1000).toFixed(1)} s`);
  if (process.env.BENCH_STRICT === "1" && checks.some((c) => c.pass === false)) exitCode = 1;
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  for (const child of children) process.stderr.write(`--- ${child.name} output (tail) ---\n${child.output()}\n`);
  exitCode = 1;
} finally {
  for (const child of [...children].reverse()) await stopChild(child);
  if ("drop" in stores) await stores.drop().catch((error: unknown) => log(`dropping the bench schema failed: ${(error as Error).message}`));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

/** CPU used so far by this process and the server children. */
function ourCpuMs(): number {
  return cpuMsOf("self") + children.reduce((sum, c) => sum + cpuMsOf(c.pid), 0);
}

async function nodeVersion(): Promise<string> {
  const node = Bun.spawn([Bun.which("node") ?? "node", "--version"], { stdout: "pipe" });
  return `Node ${(await new Response(node.stdout).text()).trim()}`;
}
