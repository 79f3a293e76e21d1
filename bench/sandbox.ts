/**
 * `bun bench/sandbox.ts`: sandbox command latency per backend (issue 13, "Tests and figures"), p50 and p99 of
 * `echo hi` and of a 3-stage pipe `seq 1 1000 | grep 7 | wc -l`, each run one at a time through the backend's
 * `exec` as the container service calls it (just-bash: a warm Bun Worker; bwrap: a new sandbox per command). The
 * gateway's event-loop lag is sampled meanwhile. bwrap is left out, with the reason, where the host cannot run it.
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

const settings = resolveSandboxSettings({ workers: 1 });
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
} finally {
  clearInterval(lagTimer);
  rmSync(dir, { recursive: true, force: true });
}
if (!probe.ok) console.log(`bwrap      skipped: ${probe.reason}`);
console.log(`max event-loop lag during the bench: ${maxLag.toFixed(1)} ms`);
mkdirSync(join(import.meta.dir, "results"), { recursive: true });
writeFileSync(join(import.meta.dir, "results/sandbox.json"), `${JSON.stringify({ runs: RUNS, commands: COMMANDS, ...results, maxEventLoopLagMs: maxLag, at: new Date().toISOString() }, null, 2)}\n`);
