/**
 * `bun bench/sandbox.ts`: sandbox figures per backend (README "Containers", Sandboxes). bwrap is left out, with the
 * reason, where the host cannot run it.
 *  - Latency: p50 and p99 of `echo hi` and of a 3-stage pipe `seq 1 1000 | grep 7 | wc -l`, each run one at a time
 *    through the backend's `exec` as the container service calls it (just-bash: a warm Bun Worker; bwrap: a new
 *    sandbox per command).
 *  - Event-loop lag under attack: the worst lag of a 10 ms timer while each of the security suite's hostile commands
 *    runs (a fork bomb, a 32 MB string copied 70 times or 2 GB, filling the disk, an endless loop, 10 MB of output).
 *    The suite (test/integration/sandbox-security.test.ts) asserts only that the loop keeps answering: how long it
 *    lags depends on the machine, so the figure lives here.
 *  - Fairness: p50 and p99 of one workspace's `echo` while another workspace fills every slot with `sleep`.
 *
 * Knobs: SANDBOX_BENCH_RUNS (commands per measure, default 300), SANDBOX_BENCH_WARMUP (default 20).
 * Results: a table on stdout and bench/results/sandbox.json.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxBackend } from "../core/sandbox/backend.ts";
import { BwrapBackend } from "../core/sandbox/bwrap/backend.ts";
import { probeBwrap } from "../core/sandbox/bwrap/probe.ts";
import { JustBashBackend } from "../core/sandbox/just-bash/backend.ts";
import { resolveSandboxSettings } from "../core/sandbox/settings.ts";

const RUNS = Number(process.env.SANDBOX_BENCH_RUNS ?? 300);
const WARMUP = Number(process.env.SANDBOX_BENCH_WARMUP ?? 20);
const COMMANDS = { echo: "echo hi", pipe: "seq 1 1000 | grep 7 | wc -l" } as const;
const EXPECTED = { echo: "hi\n", pipe: "271\n" } as const;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function measure(backend: SandboxBackend, root: string, key: keyof typeof COMMANDS) {
  const options = { timeoutMs: 10_000, maxOutputBytes: 10_000 };
  for (let i = 0; i < WARMUP; i++) await backend.exec(root, COMMANDS[key], options);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const result = await backend.exec(root, COMMANDS[key], options);
    times.push(performance.now() - started);
    if (result.stdout !== EXPECTED[key]) throw new Error(`${backend.name} ${key}: unexpected output ${JSON.stringify(result)}`);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const MIB = 1024 * 1024;

/** The security suite's attacks and their time-outs (test/integration/sandbox-security.test.ts). */
function hostileCommands(backend: string): Record<string, { command: string; timeoutMs: number }> {
  const justBash = backend === "just-bash";
  return {
    "fork bomb": { command: ":(){ :|:& };:; sleep 1; echo done", timeoutMs: 3_000 },
    "2 GB": {
      command: justBash
        ? "a=x; for i in $(seq 1 25); do a=$a$a; done; for i in $(seq 1 70); do b[$i]=\"$a$i\"; done; echo allocated ${#b[@]}"
        : "x=$(head -c 2147483648 /dev/zero | tr '\\0' a) && echo allocated ${#x}",
      timeoutMs: 10_000,
    },
    "fill the disk": {
      command: justBash
        ? "a=$(printf '%01000000d' 0); for i in $(seq 1 200); do echo \"$a\" > f$i || break; done; rm -f f*"
        : "for i in $(seq 1 200); do head -c 1000000 /dev/zero > f$i || break; done; rm -f f*",
      timeoutMs: 10_000,
    },
    "endless loop": { command: "while true; do :; done", timeoutMs: 1_500 },
    "10 MB of output": {
      command: justBash ? "a=$(printf '%01000d' 0); for i in $(seq 1 10000); do echo \"$a\"; done" : "head -c 10000000 /dev/zero | tr '\\0' 0",
      timeoutMs: 10_000,
    },
  };
}

/** The worst lag of a 10 ms timer while `run` is pending. */
async function worstLagDuring(run: () => Promise<unknown>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return worst;
}

async function lagUnderAttack(make: () => Promise<SandboxBackend>, root: string): Promise<Record<string, number>> {
  const backend = await make();
  const lags: Record<string, number> = {};
  try {
    for (const [name, { command, timeoutMs }] of Object.entries(hostileCommands(backend.name))) {
      lags[name] = await worstLagDuring(() => backend.exec(root, command, { timeoutMs, maxOutputBytes: 64 * 1024 }));
      await backend.exec(root, "rm -f f*", { timeoutMs: 10_000, maxOutputBytes: 1_000 });
    }
  } finally {
    await backend.close();
  }
  return lags;
}

/** One workspace's echo latency while another holds every slot (and one more waits) with `sleep`. */
async function echoWhileAnotherFillsTheSlots(make: () => Promise<SandboxBackend>, base: string, workers: number) {
  const backend = await make();
  const dirs = ["a", "b"].map((name) => join(base, `fair-${name}`));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const stop = new AbortController();
  const sleeping = Array.from({ length: workers + 1 }, () =>
    backend.exec(dirs[0]!, "sleep 60", { timeoutMs: 70_000, maxOutputBytes: 1_000, signal: stop.signal, workspace: "a" }).catch(() => undefined),
  );
  const times: number[] = [];
  try {
    await Bun.sleep(500); // the sleeps have started
    for (let i = 0; i < Math.min(RUNS, 100); i++) {
      const started = performance.now();
      const result = await backend.exec(dirs[1]!, "echo hi", { timeoutMs: 10_000, maxOutputBytes: 1_000, workspace: "b" });
      times.push(performance.now() - started);
      if (result.stdout !== "hi\n") throw new Error(`${backend.name} fairness: unexpected output ${JSON.stringify(result)}`);
    }
  } finally {
    stop.abort();
    await Promise.all(sleeping);
    await backend.close();
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const settings = resolveSandboxSettings({ workers: 1 });
const attackSettings = resolveSandboxSettings({ workers: 2, maxFsBytes: 20 * MIB, maxFiles: 2_000, maxMemoryBytes: 512 * MIB, maxProcesses: 128 });
const dir = mkdtempSync(join(tmpdir(), "sandbox-bench-"));
chmodSync(dir, 0o755);
const root = join(dir, "files");
mkdirSync(root);
let maxLag = 0;
let last = performance.now();
const lagTimer = setInterval(() => {
  const now = performance.now();
  maxLag = Math.max(maxLag, now - last - 10);
  last = now;
}, 10);

const results: Record<string, unknown> = {};
const probe = await probeBwrap(settings);
const backends: SandboxBackend[] = [new JustBashBackend(settings)];
if (probe.ok) backends.push(new BwrapBackend(settings, probe.plan));
else results.bwrap = { skipped: probe.reason };
// A plan per backend: closing a bwrap backend removes its plan's files.
const makers: Record<string, () => Promise<SandboxBackend>> = { "just-bash": async () => new JustBashBackend(attackSettings) };
if (probe.ok) {
  makers.bwrap = async () => {
    const fresh = await probeBwrap(attackSettings);
    if (!fresh.ok) throw new Error(fresh.reason);
    return new BwrapBackend(attackSettings, fresh.plan);
  };
}

try {
  for (const backend of backends) {
    const row: Record<string, { p50: number; p99: number }> = {};
    for (const key of Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>) row[key] = await measure(backend, root, key);
    results[backend.name] = row;
    console.log(
      `${backend.name.padEnd(10)} echo p50 ${row.echo!.p50.toFixed(2)} ms p99 ${row.echo!.p99.toFixed(2)} ms | ` +
        `3-stage pipe p50 ${row.pipe!.p50.toFixed(2)} ms p99 ${row.pipe!.p99.toFixed(2)} ms  (${RUNS} runs each)`,
    );
    await backend.close();
  }
  for (const [name, make] of Object.entries(makers)) {
    const lags = await lagUnderAttack(make, root);
    const fair = await echoWhileAnotherFillsTheSlots(make, dir, attackSettings.workers);
    results[`${name}-under-attack`] = { maxEventLoopLagMs: lags, echoWhileAnotherWorkspaceFillsEverySlot: fair };
    console.log(`${name.padEnd(10)} worst event-loop lag: ${Object.entries(lags).map(([attack, ms]) => `${attack} ${ms.toFixed(1)} ms`).join(", ")}`);
    console.log(`${name.padEnd(10)} another workspace's echo while one fills all ${attackSettings.workers} slots: p50 ${fair.p50.toFixed(2)} ms p99 ${fair.p99.toFixed(2)} ms`);
  }
} finally {
  clearInterval(lagTimer);
  rmSync(dir, { recursive: true, force: true });
}
if (!probe.ok) console.log(`bwrap      skipped: ${probe.reason}`);
console.log(`max event-loop lag during the bench: ${maxLag.toFixed(1)} ms`);
mkdirSync(join(import.meta.dir, "results"), { recursive: true });
writeFileSync(join(import.meta.dir, "results/sandbox.json"), `${JSON.stringify({ runs: RUNS, commands: COMMANDS, ...results, maxEventLoopLagMs: maxLag, at: new Date().toISOString() }, null, 2)}\n`);
