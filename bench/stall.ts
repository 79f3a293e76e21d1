/**
 * `npm run bench:stall`: what one hostile request does to everybody else. The gateway (bench/stall-gateway.ts,
 * bundled like `npm start`, its workers beside it) runs in a process of its own, with the simulator and a scripted
 * upstream in two more; for each row of HOSTILE (bench/stall-rows.ts), one key keeps the hostile input in flight for
 * STALL_ROW_MS (a request sent again as soon as it answers, or a state held open) while this process asks `/health`
 * and sends an ordinary chat request from another key, one after the other, and records how long each took. The
 * table gives both latencies' p50 / p99 / max over the requests that started while the hostile input was in flight,
 * against the target: 100 ms at p99 (the first row, with nothing hostile, is the floor). Timing lives here, not in
 * the tests.
 *
 * Everything stays on 127.0.0.1; every request has a time-out, every row a deadline, and a watchdog kills the
 * children, so a run stops by itself. Knobs: STALL_ROW_MS (default 5000), STALL_ONLY (only rows whose name contains
 * it, or one of its `|`-separated parts), STALL_PROFILE (a directory: the gateway runs under `bun --cpu-prof` and
 * leaves its profile there).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ADMIN_KEY, Fleet } from "./fleet.ts";
import { HOSTILE, type Held, type Hostile, type HostileContext, type StallTarget } from "./stall-rows.ts";

type Json = Record<string, any>;

const ROW_MS = Number(process.env.STALL_ROW_MS ?? 5_000);
const ONLY = process.env.STALL_ONLY;
/** A directory for the gateway's CPU profile (`bun --cpu-prof`, written when the run ends). */
const PROFILE_DIR = process.env.STALL_PROFILE;
/** A hostile request still unanswered after this is abandoned (and the row says so). */
const HOSTILE_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 60_000;
const PROBE_PAUSE_MS = 5;
const TARGET_MS = 100;
/** The workers a built gateway loads from beside its bundle (package.json `start` names the same). */
const WORKERS = ["core/jobs/documents/worker.ts", "core/sandbox/just-bash/just-bash-worker.ts", "core/guardrails/detectors/scan-worker.ts"];

interface Row {
  name: string;
  hostile: string;
  health: number[];
  ordinary: number[];
}

const dir = mkdtempSync(join(tmpdir(), "gateway-stall-"));
const fleet = new Fleet(30 * 60_000);
let pages: Record<string, () => Response> = {};
const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => pages[new URL(req.url).pathname]?.() ?? new Response("not found", { status: 404 }) });

try {
  const root = resolve(import.meta.dir, "..");
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const scripted = await fleet.spawn(join(import.meta.dir, "stall-upstream.ts"), {});
  const entry = await bundle(root, join(dir, "bundle"));
  await Bun.write(join(dir, "data", ".keep"), "");
  const profile: Record<string, string> = PROFILE_DIR ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(PROFILE_DIR)}` } : {};
  const gateway = await fleet.spawn(entry, { BENCH_DIR: join(dir, "data"), BENCH_ADMIN_KEY: ADMIN_KEY, BENCH_UPSTREAM: String(sim.url), BENCH_SCRIPTED: String(scripted.url), ...profile });
  const base = `http://127.0.0.1:${gateway.port}/api/v1`;
  const admin = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return (await res.json()) as Json;
  };
  const newKey = async (name: string) => (await admin("POST", "/keys", { name })).key as string;
  const target: StallTarget = { base, hostileKey: await newKey("hostile"), ordinaryKey: await newKey("ordinary"), admin };
  const ctx: HostileContext = { site: `http://127.0.0.1:${site.port}`, target };
  // Load the tokenizer and warm every path once, outside any row.
  await ordinary(target);
  await send(target, "/messages/count_tokens", JSON.stringify({ model: "bench/small", messages: [{ role: "user", content: "warm up" }] }), target.hostileKey);

  const rows: Row[] = [await measure(ctx, undefined)];
  for (const hostile of HOSTILE) if (!ONLY || ONLY.split("|").some((part) => hostile.name.includes(part))) rows.push(await measure(ctx, hostile));
  print(rows);
  if (PROFILE_DIR) {
    // The profile is written when the gateway exits by itself (SIGTERM: it stops its server and exits).
    gateway.proc.kill("SIGTERM");
    await Promise.race([gateway.proc.exited, Bun.sleep(30_000)]);
    console.error(`gateway CPU profile in ${resolve(PROFILE_DIR)}`);
  }
} finally {
  fleet.killAll();
  site.stop(true);
  await Bun.sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

/**
 * The gateway bundled like `npm start` (its entry at the top of `outdir`), and its workers at their paths from the
 * build root beside it, where a built gateway looks for them. Names are kept when profiling.
 */
async function bundle(root: string, outdir: string): Promise<string> {
  const minify = PROFILE_DIR ? { whitespace: true, syntax: true, identifiers: false } : true;
  const external = ["@mongodb-js/zstd", "node-liblzma"];
  const gateway = await Bun.build({ entrypoints: [join(root, "bench/stall-gateway.ts")], target: "bun", minify, outdir, external });
  const workers = await Bun.build({ entrypoints: WORKERS.map((w) => join(root, w)), root, target: "bun", minify, outdir, external });
  const entry = gateway.outputs.find((o) => o.kind === "entry-point");
  if (!gateway.success || !workers.success || !entry) throw new Error(`bundling the gateway failed: ${[...gateway.logs, ...workers.logs].join("\n")}`);
  return entry.path;
}

function send(target: StallTarget, path: string, body: string, key: string, timeoutMs = HOSTILE_TIMEOUT_MS): Promise<number> {
  return fetch(target.base + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body, signal: AbortSignal.timeout(timeoutMs) }).then(
    async (res) => (await res.arrayBuffer(), res.status),
    () => 0,
  );
}

function ordinary(target: StallTarget): Promise<number> {
  const body = JSON.stringify({ model: "bench/small", messages: [{ role: "user", content: "An ordinary question [sim tokens=8]" }] });
  return send(target, "/chat/completions", body, target.ordinaryKey, PROBE_TIMEOUT_MS);
}

/** One row: the hostile input kept in flight for ROW_MS (none for the floor) while both probes run. */
async function measure(ctx: HostileContext, hostile: Hostile | undefined): Promise<Row> {
  pages = hostile?.pages ?? {};
  const row: Row = { name: hostile?.name ?? "(nothing hostile: the floor)", hostile: "—", health: [], ordinary: [] };
  const key = hostile?.key ? await hostile.key(ctx) : ctx.target.hostileKey;
  let inFlight = 0;
  let running = true;
  const probe = async (samples: number[], call: () => Promise<unknown>) => {
    while (running) {
      const during = !hostile || inFlight > 0;
      const started = performance.now();
      await call();
      if (during && running) samples.push(performance.now() - started);
      await Bun.sleep(PROBE_PAUSE_MS);
    }
  };
  const health = () => fetch(`${ctx.target.base}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then((r) => r.arrayBuffer(), () => undefined);
  const probes = [probe(row.health, health), probe(row.ordinary, () => ordinary(ctx.target))];

  if (hostile?.request) {
    const { path, body } = hostile.request;
    const payload = JSON.stringify(body(ctx));
    const answers: Array<{ status: number; ms: number }> = [];
    const deadline = performance.now() + ROW_MS;
    while (performance.now() < deadline) {
      const started = performance.now();
      inFlight++;
      const status = await send(ctx.target, path, payload, key);
      inFlight--;
      answers.push({ status, ms: performance.now() - started });
    }
    const statuses = [...new Set(answers.map((a) => (a.status === 0 ? "timed out" : String(a.status))))].join(", ");
    row.hostile = `${answers.length} × ${statuses}, median ${fmt(percentile(answers.map((a) => a.ms), 0.5))}`;
  } else if (hostile?.hold) {
    let held: Held | undefined;
    try {
      inFlight++;
      held = await hostile.hold(ctx, key);
      await Bun.sleep(ROW_MS);
    } finally {
      inFlight--;
      await held?.close();
      row.hostile = held?.describe() ?? "could not be opened";
    }
  } else await Bun.sleep(ROW_MS);
  running = false;
  await Promise.all(probes);
  console.error(`done: ${row.name}`);
  return row;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function fmt(ms: number): string {
  if (Number.isNaN(ms)) return "—";
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

function print(rows: Row[]): void {
  const stats = (v: number[]) => `${fmt(percentile(v, 0.5))} / ${fmt(percentile(v, 0.99))} / ${fmt(v.length ? Math.max(...v) : Number.NaN)} (${v.length})`;
  const verdict = (row: Row) => (Math.max(percentile(row.health, 0.99), percentile(row.ordinary, 0.99)) <= TARGET_MS ? "yes" : "**no**");
  console.log(`\nEach row ${ROW_MS} ms; latencies p50 / p99 / max (requests), of those started while the hostile input was in flight.\n`);
  console.log(`| hostile input | its answers | /health | ordinary request, another key | p99 ≤ ${TARGET_MS} ms |`);
  console.log("|---|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.name} | ${row.hostile} | ${stats(row.health)} | ${stats(row.ordinary)} | ${verdict(row)} |`);
}
