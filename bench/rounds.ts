/**
 * Rounds of one load rotating between targets: each target gets `rounds` short runs, in an order that shifts every
 * round and runs backwards every other round (so no target always follows the same one, whose after-effects — a
 * database flushing, a collection — would then always land on it), so a change in what else the machine does weighs
 * on all of them alike. `gapMs` of quiet after each run lets such after-effects pass. Per target: every outcome in one
 * recorder (latency percentiles over all rounds), each round's req/s (for paired ratios: round i of A against round
 * i of B), the server process's CPU per request over its rounds, and its peak RSS.
 */
import { cpuMsOf, Recorder, runForDuration, sampleRss, type LoadResult, type RequestSpec } from "./load.ts";

export interface RoundTarget {
  name: string;
  /** The server process whose CPU and memory are read. */
  pid: number;
  spec: RequestSpec;
}

export interface RoundsResult extends LoadResult {
  /** req/s of each round, in round order. */
  roundRps: number[];
  /** CPU time of the target's process per request, in µs (over all its rounds). */
  cpuUsPerRequest: number;
  /** CPU µs per request of each round. */
  roundCpuUs: number[];
  peakRssBytes: number;
}

export async function rotate(targets: RoundTarget[], concurrency: number, rounds: number, roundMs: number, gapMs = 0): Promise<Map<string, RoundsResult>> {
  const state = targets.map((t) => ({ target: t, recorder: new Recorder(), elapsed: 0, cpuMs: 0, rps: [] as number[], cpu: [] as number[], peak: 0 }));
  for (let round = 0; round < rounds; round++) {
    const shift = Math.floor(round / 2) % state.length;
    const order = [...state.slice(shift), ...state.slice(0, shift)];
    for (const s of round % 2 === 0 ? order : order.reverse()) {
      const before = cpuMsOf(s.target.pid);
      const requestsBefore = s.recorder.latencies.length + s.recorder.errors;
      const sampler = sampleRss(s.target.pid, 50);
      const result = await runForDuration(s.target.spec, concurrency, roundMs, s.recorder);
      s.peak = Math.max(s.peak, sampler.stop().peak);
      const cpu = cpuMsOf(s.target.pid) - before;
      const requests = s.recorder.latencies.length + s.recorder.errors - requestsBefore;
      s.elapsed += result.elapsedMs;
      s.cpuMs += cpu;
      s.rps.push(result.rps);
      s.cpu.push(requests > 0 ? (cpu * 1000) / requests : NaN);
      if (gapMs > 0) await Bun.sleep(gapMs);
    }
  }
  const out = new Map<string, RoundsResult>();
  for (const s of state) {
    const total = s.recorder.result(s.elapsed, s.target.spec.stream);
    out.set(s.target.name, {
      ...total,
      roundRps: s.rps,
      roundCpuUs: s.cpu,
      cpuUsPerRequest: total.requests > 0 ? (s.cpuMs * 1000) / total.requests : NaN,
      peakRssBytes: s.peak,
    });
  }
  return out;
}

/** The median (of an even count, the mean of the middle two); NaN values are left out. */
export function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The median over rounds of a[i] / b[i]: a drift during the run weighs on both sides of each ratio alike. */
export function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((value, i) => value / (b[i] ?? NaN)));
}
