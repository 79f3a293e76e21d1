/**
 * Readiness (README "Operations: store outages"): can this process serve now? Each configured store is asked for one
 * round trip with a short time-out, in parallel; `/health` stays a liveness answer that touches nothing.
 */
import type { Kv } from "../kv/kv.ts";
import type { Store } from "../store/types.ts";
import type { StoreName } from "./unavailable.ts";

/** A readiness check answers within this, whatever the stores do. */
export const READINESS_TIMEOUT_MS = 1_000;

export interface CheckResult {
  status: "ok" | "unavailable";
  ms: number;
}

export interface Readiness {
  ready: boolean;
  /** Every configured store, in this order; Redis only when `REDIS_URL` is set (the in-process kv cannot fail). */
  checks: Partial<Record<StoreName, CheckResult>>;
  /** The first store that failed. */
  failing: StoreName | undefined;
}

export async function checkReadiness(deps: { store: Store; kv: Kv; redis: boolean }, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const probes: Array<[StoreName, () => Promise<unknown>]> = [["database", () => deps.store.ping(timeoutMs)]];
  if (deps.redis) probes.push(["redis", () => deps.kv.get("gw:ready")]);
  const results = await Promise.all(probes.map(async ([name, probe]) => [name, await timed(probe, timeoutMs)] as const));
  const checks: Readiness["checks"] = Object.fromEntries(results);
  const failing = results.find(([, result]) => result.status !== "ok")?.[0];
  return { ready: failing === undefined, checks, failing };
}

/** Runs `probe`; "unavailable" when it rejects or takes longer than `timeoutMs`. */
async function timed(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    const ok = await Promise.race([probe().then(() => true), late]);
    return { status: ok ? "ok" : "unavailable", ms: Math.round(performance.now() - started) };
  } catch {
    return { status: "unavailable", ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}
