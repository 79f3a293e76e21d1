/**
 * `npm run bench:stall`: what one hostile request does to everybody else. The gateway (bench/stall-gateway.ts,
 * bundled like `npm start`) runs in a process of its own, with the simulator and a scripted upstream in two more;
 * for each row of HOSTILE below, one key keeps the hostile request in flight (sent again as soon as it answers) for
 * STALL_ROW_MS while this process asks `/health` and sends an ordinary chat request from another key, one after the
 * other, and records how long each took. The table gives both latencies' p50 / p99 / max over the requests that
 * started while a hostile one was in flight, against the target: 100 ms at p99 (the first row, with nothing hostile,
 * is the floor). Timing lives here, not in the tests.
 *
 * Adding a row: one entry in HOSTILE (a name, the path and body; `pages` the bench serves on 127.0.0.1 for the
 * gateway to fetch, at `ctx.site`). The scripted model `bench/agent` calls a tool when the last user message says
 * `[call NAME {json}]`. Everything stays on 127.0.0.1; every request has a time-out, every row a deadline, and a
 * watchdog kills the children, so a run stops by itself. Knobs: STALL_ROW_MS (default 5000), STALL_ONLY (only rows
 * whose name contains it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ADMIN_KEY, bundleGateway, Fleet } from "./fleet.ts";

interface HostileContext {
  /** `http://127.0.0.1:PORT` of the bench's page server (the gateway may fetch it: loopback is allowed). */
  site: string;
}

interface Hostile {
  name: string;
  /** Under `/api/v1`. */
  path: string;
  body(ctx: HostileContext): unknown;
  /** Pages served at `ctx.site` + path while the row runs. */
  pages?: Record<string, () => Response>;
}

/** `size` characters of six-letter words of random letters: they (almost) never repeat, so no tokenizer cache helps. */
function freshWords(size: number): string {
  const bytes = new Uint8Array(size);
  let state = 7;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = i % 7 === 6 ? 0x20 : 0x61 + ((state >>> 0) % 26);
  }
  return new TextDecoder().decode(bytes);
}

const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};
const pageOfA = once(() => new TextEncoder().encode("a".repeat(5_000_000)));

const HOSTILE: Hostile[] = [
  {
    name: "count_tokens: 80 KB of x (one pre-token)",
    path: "/messages/count_tokens",
    body: () => ({ model: "bench/small", messages: [{ role: "user", content: "x".repeat(80_000) }] }),
  },
  {
    name: "count_tokens: 8 MB of words that never repeat",
    path: "/messages/count_tokens",
    body: () => ({ model: "bench/small", messages: [{ role: "user", content: freshWords(8_000_000) }] }),
  },
  {
    name: "compression: one 9 MB message of words",
    path: "/chat/completions",
    body: () => ({ model: "bench/small", messages: [{ role: "user", content: freshWords(9_000_000) }] }),
  },
  {
    name: "web_fetch: a page of 5 MB of a",
    path: "/chat/completions",
    pages: { "/a.txt": () => new Response(pageOfA(), { headers: { "content-type": "text/plain" } }) },
    body: (ctx) => ({ model: "bench/agent", messages: [{ role: "user", content: `[call web_fetch {"url":"${ctx.site}/a.txt"}]` }], tools: [{ type: "service:web_fetch" }] }),
  },
];

const ROW_MS = Number(process.env.STALL_ROW_MS ?? 5_000);
const ONLY = process.env.STALL_ONLY;
/** A hostile request still unanswered after this is abandoned (and the row says so). */
const HOSTILE_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 60_000;
const PROBE_PAUSE_MS = 5;
const TARGET_MS = 100;

interface Target {
  base: string;
  hostileKey: string;
  ordinaryKey: string;
}

interface Row {
  name: string;
  hostile: string;
  health: number[];
  ordinary: number[];
}

const dir = mkdtempSync(join(tmpdir(), "gateway-stall-"));
const fleet = new Fleet(15 * 60_000);
let pages: Record<string, () => Response> = {};
const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => pages[new URL(req.url).pathname]?.() ?? new Response("not found", { status: 404 }) });
const ctx: HostileContext = { site: `http://127.0.0.1:${site.port}` };

try {
  const root = resolve(import.meta.dir, "..");
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const scripted = await fleet.spawn(join(import.meta.dir, "stall-upstream.ts"), {});
  const entry = await bundleGateway(root, join(dir, "bundle"), "bench/stall-gateway.ts");
  await Bun.write(join(dir, "data", ".keep"), "");
  const gateway = await fleet.spawn(entry, { BENCH_DIR: join(dir, "data"), BENCH_ADMIN_KEY: ADMIN_KEY, BENCH_UPSTREAM: String(sim.url), BENCH_SCRIPTED: String(scripted.url) });
  const base = `http://127.0.0.1:${gateway.port}/api/v1`;
  const target: Target = { base, hostileKey: await newKey(base, "hostile"), ordinaryKey: await newKey(base, "ordinary") };
  // Load the tokenizer and warm every path once, outside any row.
  await ordinary(target);
  await send(target, "/messages/count_tokens", JSON.stringify({ model: "bench/small", messages: [{ role: "user", content: "warm up" }] }));

  const rows: Row[] = [await measure(target, undefined)];
  for (const hostile of HOSTILE) if (!ONLY || hostile.name.includes(ONLY)) rows.push(await measure(target, hostile));
  print(rows);
} finally {
  fleet.killAll();
  site.stop(true);
  await Bun.sleep(200);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

async function newKey(base: string, name: string): Promise<string> {
  const res = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name }) });
  return ((await res.json()) as { key: string }).key;
}

function send(target: Target, path: string, body: string, key = target.hostileKey, timeoutMs = HOSTILE_TIMEOUT_MS): Promise<number> {
  return fetch(target.base + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body, signal: AbortSignal.timeout(timeoutMs) }).then(
    async (res) => (await res.arrayBuffer(), res.status),
    () => 0,
  );
}

function ordinary(target: Target): Promise<number> {
  const body = JSON.stringify({ model: "bench/small", messages: [{ role: "user", content: "An ordinary question [sim tokens=8]" }] });
  return send(target, "/chat/completions", body, target.ordinaryKey, PROBE_TIMEOUT_MS);
}

/** One row: the hostile request kept in flight for ROW_MS (none for the floor) while both probes run. */
async function measure(target: Target, hostile: Hostile | undefined): Promise<Row> {
  pages = hostile?.pages ?? {};
  const body = hostile ? JSON.stringify(hostile.body(ctx)) : undefined;
  const row: Row = { name: hostile?.name ?? "(nothing hostile: the floor)", hostile: "—", health: [], ordinary: [] };
  let inFlight = 0;
  let running = true;
  const deadline = performance.now() + ROW_MS;
  const answers: Array<{ status: number; ms: number }> = [];

  const hostileLoop = async () => {
    if (!hostile || !body) return;
    while (performance.now() < deadline) {
      const started = performance.now();
      inFlight++;
      const status = await send(target, hostile.path, body);
      inFlight--;
      answers.push({ status, ms: performance.now() - started });
    }
  };
  const probe = async (samples: number[], call: () => Promise<unknown>) => {
    while (running) {
      const during = !hostile || inFlight > 0;
      const started = performance.now();
      await call();
      if (during && running) samples.push(performance.now() - started);
      await Bun.sleep(PROBE_PAUSE_MS);
    }
  };
  const probes = [probe(row.health, () => fetch(`${target.base}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then((r) => r.arrayBuffer(), () => undefined)), probe(row.ordinary, () => ordinary(target))];
  if (hostile) await hostileLoop();
  else await Bun.sleep(ROW_MS);
  running = false;
  await Promise.all(probes);

  if (hostile) {
    const statuses = [...new Set(answers.map((a) => (a.status === 0 ? "timed out" : String(a.status))))].join(", ");
    row.hostile = `${answers.length} × ${statuses}, median ${fmt(percentile(answers.map((a) => a.ms), 0.5))}`;
  }
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
  const stats = (v: number[]) => `${fmt(percentile(v, 0.5))} / ${fmt(percentile(v, 0.99))} / ${fmt(Math.max(...v))} (${v.length})`;
  const verdict = (row: Row) => (Math.max(percentile(row.health, 0.99), percentile(row.ordinary, 0.99)) <= TARGET_MS ? "yes" : "**no**");
  console.log(`\nEach row ${ROW_MS} ms; latencies p50 / p99 / max (requests), of those started while the hostile request was in flight.\n`);
  console.log(`| hostile request | its answers | /health | ordinary request, another key | p99 ≤ ${TARGET_MS} ms |`);
  console.log("|---|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.name} | ${row.hostile} | ${stats(row.health)} | ${stats(row.ordinary)} | ${verdict(row)} |`);
}
