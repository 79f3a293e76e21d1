/**
 * The load generator: plain fetch in the bench's own process with a concurrency pool. Every request is bounded by a
 * timeout and every loop by a deadline or a count, so a run always stops by itself.
 */
import { readFileSync } from "node:fs";

/** One kind of request, identical bytes for every target except the URL (and the key, which only the gateway reads). */
export interface RequestSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  /** Its own pool of connections (Bun.FetchSession), instead of the process's. */
  session?: Bun.FetchSession;
}

export interface Summary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** A few distinct error messages, for the report. */
  errorSamples: string[];
  elapsedMs: number;
  rps: number;
  latencyMs: Summary;
  /** Streams only: first body byte after the request was sent. */
  ttfbMs?: Summary;
  /** Highest number of requests in flight at once. */
  peakInFlight: number;
  /** Bytes of response body received per request (mean). */
  bytesPerRequest: number;
}

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Bun's fetch allows 256 requests in flight unless BUN_CONFIG_MAX_HTTP_REQUESTS is raised, and it is read once,
 * before the first fetch: unless it is already `max`, re-runs this script with it set (and `env`, through `wrap`,
 * e.g. taskset) and exits with the re-run's code; returns only inside the re-run.
 */
export async function ensureMaxHttpRequests(max: string, env: Record<string, string> = {}, wrap: (command: string[]) => string[] = (c) => c): Promise<void> {
  if (process.env.BUN_CONFIG_MAX_HTTP_REQUESTS === max) return;
  const again = Bun.spawn(wrap([process.execPath, Bun.main, ...process.argv.slice(2)]), {
    env: { ...process.env, ...env, BUN_CONFIG_MAX_HTTP_REQUESTS: max },
    stdio: ["inherit", "inherit", "inherit"],
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => again.kill(signal));
  process.exit(await again.exited);
}
const DONE = new TextEncoder().encode("[DONE]");

export interface Outcome {
  ok: boolean;
  latency: number;
  ttfb?: number;
  bytes: number;
  error?: string;
}

/** Collects outcomes; one recorder may span several runs (rounds of the same load, see bench/rounds.ts). */
export class Recorder {
  readonly latencies: number[] = [];
  readonly ttfbs: number[] = [];
  errors = 0;
  bytes = 0;
  inFlight = 0;
  peakInFlight = 0;
  /** Requests whose response has begun (headers in) and not ended: streams the server holds open. */
  open = 0;
  readonly samples = new Map<string, number>();

  add(outcome: Outcome): void {
    if (!outcome.ok) {
      this.errors++;
      const key = outcome.error ?? "unknown";
      if (this.samples.size < 5 || this.samples.has(key)) this.samples.set(key, (this.samples.get(key) ?? 0) + 1);
      return;
    }
    this.latencies.push(outcome.latency);
    if (outcome.ttfb !== undefined) this.ttfbs.push(outcome.ttfb);
    this.bytes += outcome.bytes;
  }

  result(elapsedMs: number, stream: boolean): LoadResult {
    const requests = this.latencies.length + this.errors;
    const out: LoadResult = {
      requests,
      errors: this.errors,
      errorSamples: [...this.samples].map(([message, count]) => `${count}× ${message}`),
      elapsedMs,
      rps: this.latencies.length / (elapsedMs / 1000),
      latencyMs: summarize(this.latencies),
      peakInFlight: this.peakInFlight,
      bytesPerRequest: this.latencies.length === 0 ? 0 : this.bytes / this.latencies.length,
    };
    if (stream) out.ttfbMs = summarize(this.ttfbs);
    return out;
  }
}

export function summarize(values: number[]): Summary {
  if (values.length === 0) return { p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, mean: sum / sorted.length };
}

/** Ends with `[DONE]` (possibly split across the last two reads), ignoring trailing whitespace. */
function endsWithDone(last: Uint8Array | undefined, previous: Uint8Array | undefined): boolean {
  if (!last) return false;
  const joined = previous ? new Uint8Array([...previous.subarray(-16), ...last.subarray(-16)]) : last.subarray(-32);
  let end = joined.length;
  while (end > 0 && (joined[end - 1] === 10 || joined[end - 1] === 13 || joined[end - 1] === 32)) end--;
  if (end < DONE.length) return false;
  for (let i = 0; i < DONE.length; i++) if (joined[end - DONE.length + i] !== DONE[i]) return false;
  return true;
}

async function once(spec: RequestSpec, recorder: Recorder): Promise<Outcome> {
  const started = performance.now();
  let opened = false;
  recorder.inFlight++;
  if (recorder.inFlight > recorder.peakInFlight) recorder.peakInFlight = recorder.inFlight;
  try {
    const init = { method: "POST", headers: spec.headers, body: spec.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
    const response = await fetch(spec.url, spec.session ? { ...init, session: spec.session } : init);
    recorder.open++;
    opened = true;
    if (!spec.stream) {
      const text = await response.text();
      const latency = performance.now() - started;
      if (response.status !== 200) return { ok: false, latency, bytes: 0, error: `HTTP ${response.status}: ${text.slice(0, 160)}` };
      if (!text.includes('"choices"')) return { ok: false, latency, bytes: 0, error: `unexpected body: ${text.slice(0, 160)}` };
      return { ok: true, latency, bytes: text.length };
    }
    if (response.status !== 200 || response.body === null) {
      const text = await response.text();
      return { ok: false, latency: performance.now() - started, bytes: 0, error: `HTTP ${response.status}: ${text.slice(0, 160)}` };
    }
    const reader = response.body.getReader();
    let ttfb: number | undefined;
    let bytes = 0;
    let last: Uint8Array | undefined;
    let previous: Uint8Array | undefined;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.length === 0) continue;
      if (ttfb === undefined) ttfb = performance.now() - started;
      bytes += value.length;
      previous = last;
      last = value;
    }
    const latency = performance.now() - started;
    if (!endsWithDone(last, previous)) return { ok: false, latency, bytes, error: "stream ended without data: [DONE]" };
    return { ok: true, latency, ttfb: ttfb ?? latency, bytes };
  } catch (error) {
    return { ok: false, latency: performance.now() - started, bytes: 0, error: `${(error as Error).name}: ${(error as Error).message}` };
  } finally {
    recorder.inFlight--;
    if (opened) recorder.open--;
  }
}

/** One request on its own (the interleaved c=1 loop). */
export function single(spec: RequestSpec): Promise<Outcome> {
  return once(spec, new Recorder());
}

/**
 * `concurrency` workers send back-to-back requests until `durationMs` has passed (requests in flight then finish).
 * With `recorder`, outcomes are added to it (the result is then that recorder's over this run's time only).
 */
export async function runForDuration(spec: RequestSpec, concurrency: number, durationMs: number, recorder = new Recorder()): Promise<LoadResult> {
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) recorder.add(await once(spec, recorder));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return recorder.result(performance.now() - started, spec.stream);
}

/**
 * A burst whose in-flight count is observable while it runs (for memory sampling). Its requests open connections
 * of their own (a FetchSession), closed once all are done: the server is then back where it was before the burst,
 * without a thousand idle keep-alive connections that the next burst would reuse.
 */
export function startBurst(spec: RequestSpec, count: number): { inFlight: () => number; open: () => number; done: Promise<LoadResult> } {
  const recorder = new Recorder();
  const started = performance.now();
  const session = new Bun.FetchSession({});
  const own = { ...spec, session };
  const all: Promise<void>[] = [];
  for (let i = 0; i < count; i++) all.push(once(own, recorder).then((o) => recorder.add(o)));
  const done = Promise.all(all).then(() => {
    session.close();
    return recorder.result(performance.now() - started, spec.stream);
  });
  return { inFlight: () => recorder.inFlight, open: () => recorder.open, done };
}

/** Resident set size of a process in bytes (VmRSS from /proc), or NaN when it is gone. */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak and what `context()` said at the peak. */
export function sampleRss(pid: number, everyMs: number, context: () => number = () => 0) {
  let peak = rssOf(pid);
  let atPeak = context();
  let maxContext = atPeak;
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    const c = context();
    if (c > maxContext) maxContext = c;
    if (rss > peak) {
      peak = rss;
      atPeak = c;
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = rssOf(pid);
      if (rss > peak) {
        peak = rss;
        atPeak = context();
      }
      return { peak, contextAtPeak: atPeak, maxContext };
    },
  };
}

/** CPU time (user + system) a process has used so far, in ms (/proc reports clock ticks of 10 ms). */
export function cpuMsOf(pid: number | "self"): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Busy CPU time of the whole machine so far, in ms (all cores; /proc/stat, clock ticks of 10 ms). */
export function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) * 10;
}

/** Resident memory split: anonymous (heap, JIT, buffers) and file-backed (the mapped Bun executable), in bytes. */
export function rssSplitOf(pid: number): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? NaN) * 1024;
    return { anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
  } catch {
    return { anon: NaN, file: NaN };
  }
}
