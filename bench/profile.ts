/**
 * `npm run bench:profile`: where a plain request's CPU goes, and what an open stream holds in memory.
 *
 * 1. CPU: the gateway, bundled as `npm start` bundles it but with names kept and a source map (so the profile names
 *    functions and source files; minified names change nothing of the work), pinned to one core like `npm run
 *    bench`'s (`BENCH_CORE`, default 1), runs under Bun's sampling profiler (`bun --cpu-prof`) in front of the
 *    simulator. After a warm-up, 64 clients send plain non-streamed requests for PROFILE_MS (default 10 s); only
 *    that window's samples are read (bench/profile-cpu.ts) and charged to areas of the code.
 * 2. Memory: heap snapshots of the same process (Bun.generateHeapSnapshot, after a full GC) when idle and with
 *    PROFILE_STREAMS (default 1,000) slow streams open, compared kind by kind (bench/profile-heap.ts).
 *
 * Writes bench/results/profile-<date>.md (and prints it); PROFILE_KEEP=1 keeps the raw profile and snapshots. All on
 * 127.0.0.1; bounded by its durations and a watchdog.
 */
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pinned, spawnChild, stopChild, type Child } from "./child-process.ts";
import { cpuMsOf, ensureMaxHttpRequests, rssOf, runForDuration, startBurst, type RequestSpec } from "./load.ts";
import { heapGrowth, heapKinds } from "./profile-heap.ts";
import { summarizeProfile, type CpuProfile } from "./profile-cpu.ts";
import { BODIES, MODEL } from "./requests.ts";
import { BUILTIN_SLUGS } from "../core/guardrails/detectors/builtins.ts";

await ensureMaxHttpRequests("16384");

/** Gives the key (by hash) a guardrail with every built-in detector, as bench/feature-cost.ts's limited arm has. */
async function guardKey(base: string, hash: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { data: { id?: string } };
  };
  const guardrail = await post("/guardrails", { name: "profile: every built-in detector", content_filter_builtins: BUILTIN_SLUGS.map((slug) => ({ slug, action: "flag" })), apply_to: "both" });
  await post(`/guardrails/${guardrail.data.id}/assignments/keys`, { key_hashes: [hash] });
}

const HERE = import.meta.dir;
const ROOT = dirname(HERE);
const PROFILE_MS = Number(process.env.PROFILE_MS ?? 10_000);
const STREAMS = Number(process.env.PROFILE_STREAMS ?? 1000);
const INTERVAL_US = Number(process.env.PROFILE_INTERVAL_US ?? 500);
/** `PROFILE_LOAD=long`: profile long streams (200 chunks, 16 clients) instead of plain requests; the memory part as before. */
const LONG = process.env.PROFILE_LOAD === "long";
/** `PROFILE_LOAD=burst`: short streams (16 chunks) from 64 clients, for what setting up a stream costs. */
const BURST = process.env.PROFILE_LOAD === "burst";
/** `PROFILE_KEY=limited`: the key has a credit limit, a rate limit and a guardrail with every built-in detector (as bench/feature-cost.ts's). */
const LIMITED = process.env.PROFILE_KEY === "limited";
/** `PROFILE_OBSERVE=on`: metrics on and every request traced to an OTLP sink (the feature-cost bench's "observed"). */
const OBSERVED = process.env.PROFILE_OBSERVE === "on";
const LOAD = BURST ? { body: BODIES.burst, stream: true, concurrency: 64, name: "short streams (16 chunks), 64 clients" } : LONG ? { body: BODIES.long, stream: true, concurrency: 16, name: "streamed 200 chunks, 16 clients" } : { body: BODIES.plain, stream: false, concurrency: 64, name: "non-streamed, 64 clients" };
const CORE = process.env.BENCH_CORE ?? (cpus().length > 1 ? "1" : "");
const ADMIN_KEY = "bench-admin-key-0123456789abcdef";
/** Streams held open long enough to open them all and snapshot the heap: 100 chunks 100 ms apart. */
const HELD_STREAM = JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Benchmark held stream [sim tokens=100 delay=100]" }] });

const dir = mkdtempSync(join(tmpdir(), "gateway-profile-"));
const children: Child[] = [];
const log = (message: string) => process.stderr.write(`[profile] ${message}\n`);
setTimeout(() => {
  log("watchdog: the run took more than 5 minutes; stopping");
  for (const child of children) child.proc.kill("SIGKILL");
  process.exit(1);
}, 5 * 60_000).unref();

let exitCode = 0;
try {
  const loadAtStart = loadavg();
  const sim = await spawnChild("simulator", { command: [process.execPath, join(HERE, "sim-server.ts")], cwd: ROOT, env: {} });
  children.push(sim);
  const built = await Bun.build({
    entrypoints: [join(HERE, "profile-gateway.ts")],
    target: "bun",
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: "linked",
    outdir: join(dir, "bundle"),
  });
  const entry = built.outputs.find((o) => o.kind === "entry-point" && o.path.endsWith("profile-gateway.js"));
  if (!built.success || !entry) throw new Error(`bundling the gateway failed: ${built.logs.join("\n")}`);
  const profDir = join(dir, "cpu");
  const sink = OBSERVED ? await spawnChild("OTLP sink", { command: [process.execPath, join(HERE, "otlp-sink.ts")], cwd: ROOT, env: {} }) : undefined;
  if (sink) children.push(sink);
  const gw = await spawnChild("gateway", {
    command: pinned([process.execPath, "--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-interval=${INTERVAL_US}`, entry.path], CORE),
    cwd: ROOT,
    env: { BENCH_UPSTREAM: String(sim.info.url), BENCH_DIR: dir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY, ...(sink ? { BENCH_OBSERVE: "on", BENCH_OTLP: String(sink.info.url) } : {}) },
  });
  children.push(gw);
  const base = `http://127.0.0.1:${gw.port}/api/v1`;
  const created = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "profile", ...(LIMITED ? { limit: 1000, rate_limit: { requests: 1_000_000_000, tokens: 1_000_000_000, interval_seconds: 60 } } : {}) }) });
  const made = (await created.json()) as { key: string; data: { hash: string } };
  const key = made.key;
  if (LIMITED) await guardKey(base, made.data.hash);
  const spec = (body: string, stream: boolean): RequestSpec => ({ url: `${base}/chat/completions`, headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body, stream });

  log("warm-up, 3 s");
  await runForDuration(spec(LOAD.body, LOAD.stream), LOAD.concurrency, 3000);
  const mark = async () => ((await gw.ask("mark")) as { mark: number }).mark;
  log(`profiling ${LOAD.name} for ${PROFILE_MS / 1000} s (gateway pinned to core ${CORE || "—"})`);
  const from = await mark();
  const cpuBefore = cpuMsOf(gw.pid);
  const load = await runForDuration(spec(LOAD.body, LOAD.stream), LOAD.concurrency, PROFILE_MS);
  const cpuMs = cpuMsOf(gw.pid) - cpuBefore;
  const to = await mark();
  if (load.errors > 0) throw new Error(`the load had errors: ${load.errorSamples.join("; ")}`);

  /** Opens the burst of held streams; resolves once all have begun to answer (or 6 s passed) with the burst. */
  const openStreams = async () => {
    const burst = startBurst(spec(HELD_STREAM, true), STREAMS);
    const deadline = performance.now() + 6000;
    while (burst.open() < STREAMS && performance.now() < deadline) await Bun.sleep(50);
    return burst;
  };
  // RSS first, in a burst of its own: writing a heap snapshot grows the process by far more than the streams do.
  log(`RSS: idle, then with ${STREAMS} streams open (after a full GC each time)`);
  await Bun.sleep(500);
  await gw.gc();
  const idleRss = rssOf(gw.pid);
  const first = await openStreams();
  await gw.gc();
  const openRss = rssOf(gw.pid);
  const firstOpen = first.open();
  await first.done;
  await Bun.sleep(1000); // the burst's connections close (startBurst), and the gateway lets go of them
  log(`heap snapshots: idle, then with ${STREAMS} streams open`);
  await gw.gc();
  const idlePath = join(dir, "idle.heapsnapshot");
  await gw.ask(`heap:${idlePath}`, 60_000);
  const burst = await openStreams();
  const open = burst.open();
  const openPath = join(dir, "open.heapsnapshot");
  await gw.ask(`heap:${openPath}`, 60_000);
  const streams = await burst.done;
  await stopChild(gw);

  // ------------------------------------------------------------------ the summary
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error("the gateway wrote no CPU profile");
  const profile = JSON.parse(readFileSync(join(profDir, file), "utf8")) as CpuProfile;
  const cpu = summarizeProfile(profile, ROOT, from, to);
  const requests = load.requests;
  const us = (samples: number) => (samples * cpu.intervalUs) / requests;
  const pct = (samples: number) => `${((samples / cpu.samples) * 100).toFixed(1)} %`;
  const before = heapKinds(readFileSync(idlePath, "utf8"));
  const after = heapKinds(readFileSync(openPath, "utf8"));
  const growth = heapGrowth(before, after);
  const perStream = (bytes: number) => (open > 0 ? bytes / open : NaN);
  const commit = (() => {
    try {
      return execSync("git rev-parse --short HEAD", { cwd: ROOT }).toString().trim();
    } catch {
      return "?";
    }
  })();
  const date = new Date().toISOString().slice(0, 10);
  const lines: string[] = [];
  lines.push(`# Profile of ${LONG ? "a long stream" : BURST ? "short streams" : "a plain request"}${LIMITED ? " (a key with a credit limit, a rate limit and every built-in detector)" : ""}${OBSERVED ? " (metrics on, every request traced to an OTLP sink)" : ""}, ${date}`);
  lines.push("");
  lines.push(
    `Commit ${commit}, Bun ${Bun.version}, ${cpus().length} cores, load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")} at the start ` +
      `(the machine is shared: absolute times are inflated, shares hold better). Gateway bundled as \`npm start\` does ` +
      `(names kept), pinned to core ${CORE || "—"}, default pipeline, SQLite file, request log at info; the simulator as upstream. ` +
      `Made with \`npm run bench:profile\` (bench/profile.ts).`,
  );
  lines.push("");
  lines.push(`## CPU: ${LOAD.name}`);
  lines.push("");
  lines.push(
    `${requests.toLocaleString("en-US")} requests in ${(load.elapsedMs / 1000).toFixed(1)} s (${Math.round(load.rps).toLocaleString("en-US")} req/s), ` +
      `gateway process CPU ${Math.round((cpuMs * 1000) / requests)} µs per request (all threads, /proc). The sampling profiler ` +
      `(every ${cpu.intervalUs} µs, JavaScript thread only) took ${cpu.samples.toLocaleString("en-US")} samples in the window: ` +
      `${us(cpu.samples).toFixed(0)} µs per request. Each sample is charged to the area of its own frame when that is our code or a ` +
      `known library, else to the nearest such caller (a native call — Bun's fetch, JSON, a socket write — counts for the code that made it).`,
  );
  lines.push("");
  lines.push("| area | share | µs per request |");
  lines.push("|---|--:|--:|");
  for (const a of cpu.areas) lines.push(`| ${a.area} | ${pct(a.samples)} | ${us(a.samples).toFixed(1)} |`);
  lines.push("");
  lines.push("### Hottest functions (self time)");
  lines.push("");
  lines.push("| function | where | area | share | µs per request |");
  lines.push("|---|---|---|--:|--:|");
  for (const h of cpu.hot.slice(0, 40)) lines.push(`| \`${h.name}\` | ${h.where} | ${h.area} | ${pct(h.samples)} | ${us(h.samples).toFixed(1)} |`);
  lines.push("");
  lines.push("### By source file (self time, native calls charged to their caller)");
  lines.push("");
  lines.push("| file | share | µs per request |");
  lines.push("|---|--:|--:|");
  for (const f of cpu.files.slice(0, 30)) lines.push(`| ${f.path} | ${pct(f.samples)} | ${us(f.samples).toFixed(1)} |`);
  lines.push("");
  lines.push(`## Memory: ${STREAMS.toLocaleString("en-US")} open streams`);
  lines.push("");
  lines.push(
    `Heap snapshots after a full GC: idle (after the load above) and with ${open.toLocaleString("en-US")} slow streams open ` +
      `(100 chunks 100 ms apart; ${streams.errors} errors). Live JS heap ${(before.totalBytes / 1e6).toFixed(1)} → ${(after.totalBytes / 1e6).toFixed(1)} MB ` +
      `(${(perStream(after.totalBytes - before.totalBytes) / 1000).toFixed(1)} KB and ${perStream(after.totalCount - before.totalCount).toFixed(0)} objects per open stream); ` +
      `process RSS, measured in a burst of its own before any snapshot, after a full GC: ${(idleRss / 1e6).toFixed(1)} → ${(openRss / 1e6).toFixed(1)} MB with ` +
      `${firstOpen.toLocaleString("en-US")} open (${((openRss - idleRss) / Math.max(1, firstOpen) / 1000).toFixed(1)} KB per stream, with what the heap does not ` +
      `hold: sockets, native buffers, allocator slack). Shallow sizes by kind, what grew:`,
  );
  lines.push("");
  lines.push("| kind | count per stream | bytes per stream | share of growth |");
  lines.push("|---|--:|--:|--:|");
  const grown = after.totalBytes - before.totalBytes;
  for (const g of growth.slice(0, 30)) lines.push(`| ${g.kind.replaceAll("|", "\\|")} | ${perStream(g.count).toFixed(2)} | ${perStream(g.bytes).toFixed(0)} | ${((g.bytes / grown) * 100).toFixed(1)} % |`);
  lines.push("");
  const markdown = lines.join("\n");
  const out = join(HERE, "results", `profile-${date}${LONG ? "-long-streams" : BURST ? "-short-streams" : ""}${LIMITED ? "-limited-key" : ""}${OBSERVED ? "-observed" : ""}.md`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  log(`wrote ${out}`);
} catch (error) {
  process.stderr.write(`profile failed: ${(error as Error).stack ?? String(error)}\n`);
  for (const child of children) process.stderr.write(`--- ${child.name} output (tail) ---\n${child.output()}\n`);
  exitCode = 1;
} finally {
  for (const child of [...children].reverse()) await stopChild(child);
  if (process.env.PROFILE_KEEP === "1") log(`kept ${dir} (the .cpuprofile and .heapsnapshot files open in Chrome's DevTools)`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
