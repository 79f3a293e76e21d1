/**
 * The speed targets of `npm run bench`, as ratios of figures from the same run (README "Performance"). A target
 * whose yardstick could not be measured (Portkey not installable, no Postgres or Redis) is reported as not measured,
 * neither met nor failed.
 */
import type { FeatureCost } from "./feature-cost.ts";
import type { LoadResult } from "./load.ts";

export type TargetName = "direct" | "proxy" | "relay" | "gateway" | "portkey";

export interface Row extends LoadResult {
  /** CPU time of the target's server process per request, in µs. */
  cpuUsPerRequest: number;
  peakRssBytes: number;
}

export interface StreamsMemory {
  beforeRssBytes: number;
  peakRssBytes: number;
  afterGcRssBytes: number;
  peakOpen: number;
  growthBytes: number;
  growthPer1000Bytes: number;
  /** Second burst, with a full GC forced while all streams are open: what the open streams really hold. */
  liveRssBytes?: number;
  /** Streams open when that GC ran. */
  liveOpen?: number;
  liveGrowthPer1000Bytes?: number;
  liveHeapUsedBytes?: number;
  liveBurstErrors?: number;
}

export interface Check {
  id: string;
  /** The target as printed, e.g. "≥ 0.40". */
  target: string;
  value: number;
  /** null: not measured. */
  pass: boolean | null;
  text: string;
}

export interface Figures {
  row(scenario: string, target: TargetName): Row | undefined;
  streams: Map<TargetName, StreamsMemory>;
  /** SSE events in one long stream (the same upstream bytes at every target). */
  longStreamEvents: number;
  features: FeatureCost | undefined;
  portkey: string;
}

const fixed = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : "—");
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "—");
const MB = 1_000_000;

function ratioCheck(id: string, label: string, value: number, min: number | undefined, max: number | undefined, detail: string, missing?: string): Check {
  const target = min !== undefined ? `≥ ${min}` : `≤ ${max}`;
  if (missing !== undefined || !Number.isFinite(value)) {
    return { id, target, value: NaN, pass: null, text: `${label}: not measured (${missing ?? "no figure"}); target ${target}` };
  }
  const pass = min !== undefined ? value >= min : value <= (max ?? Infinity);
  return { id, target, value, pass, text: `${label}: ${fixed(value, value >= 10 ? 1 : 2)} (target ${target}) — ${detail}` };
}

export function checks(f: Figures): Check[] {
  const out: Check[] = [];
  const portkeyMissing = f.portkey.startsWith("not measured") ? f.portkey.replace(/^not measured: /, "") : undefined;
  for (const [scenario, label, unit, vsPortkey] of [
    ["c64", "non-streamed, 64 clients", "req/s", 10],
    ["burst", "stream burst, 64 clients", "streams/s", 5],
  ] as const) {
    const gw = f.row(scenario, "gateway")?.rps ?? NaN;
    const px = f.row(scenario, "proxy")?.rps ?? NaN;
    const pk = f.row(scenario, "portkey")?.rps ?? NaN;
    // Beside each throughput ratio, the one CPU per request gives (what a saturated core of each would serve).
    const cpu = (t: TargetName) => f.row(scenario, t)?.cpuUsPerRequest ?? NaN;
    const byCpu = (other: TargetName) => `; by CPU per request ${fixed(cpu(other) / cpu("gateway"))} (${int(cpu("gateway"))} vs ${int(cpu(other))} µs)`;
    out.push(ratioCheck(`${scenario}_vs_proxy`, `${label}: gateway ÷ bare proxy`, gw / px, 0.4, undefined, `${int(gw)} / ${int(px)} ${unit}${byCpu("proxy")}`));
    out.push(ratioCheck(`${scenario}_vs_portkey`, `${label}: gateway ÷ Portkey`, gw / pk, vsPortkey, undefined, `${int(gw)} / ${int(pk)} ${unit}${byCpu("portkey")}`, portkeyMissing));
  }
  const gwLong = f.row("long", "gateway")?.cpuUsPerRequest ?? NaN;
  const relayLong = f.row("long", "relay")?.cpuUsPerRequest ?? NaN;
  const perChunk = (us: number) => fixed(us / f.longStreamEvents, 2);
  out.push(
    ratioCheck(
      "long_cpu_per_chunk",
      `long streams (${f.longStreamEvents} events): gateway CPU per chunk ÷ minimal JS relay's`,
      gwLong / relayLong,
      undefined,
      2,
      `${perChunk(gwLong)} / ${perChunk(relayLong)} µs per chunk`,
    ),
  );

  const gwStreams = f.row("streams", "gateway");
  const directStreams = f.row("streams", "direct");
  const gwMem = f.streams.get("gateway");
  const pxMem = f.streams.get("proxy");
  const errors = (gwStreams?.errors ?? NaN) + (gwMem?.liveBurstErrors ?? 0);
  const count = gwStreams?.requests ?? NaN;
  out.push({
    id: "streams_errors",
    target: "= 0",
    value: errors,
    pass: Number.isFinite(errors) ? errors === 0 : null,
    text: `${int(count)} concurrent streams: gateway errors ${int(errors)} over both bursts (target 0)${gwStreams?.errorSamples.length ? ` — ${gwStreams.errorSamples.join("; ")}` : ""}`,
  });
  const gwP99 = gwStreams?.latencyMs.p99 ?? NaN;
  const dP99 = directStreams?.latencyMs.p99 ?? NaN;
  out.push(ratioCheck("streams_p99_vs_direct", `${int(count)} concurrent streams: gateway p99 total time ÷ direct's`, gwP99 / dP99, undefined, 1.3, `${int(gwP99)} / ${int(dP99)} ms`));
  const gwGrowth = gwMem?.growthPer1000Bytes ?? NaN;
  const pxGrowth = pxMem?.growthPer1000Bytes ?? NaN;
  out.push(
    ratioCheck(
      "streams_rss_vs_proxy",
      `${int(count)} concurrent streams: gateway RSS growth per 1,000 open ÷ bare proxy's`,
      gwGrowth / pxGrowth,
      undefined,
      3,
      `${fixed(gwGrowth / MB, 1)} / ${fixed(pxGrowth / MB, 1)} MB per 1,000 open`,
    ),
  );

  const p50 = (t: TargetName) => f.row("c1", t)?.latencyMs.p50 ?? NaN;
  const gwAdded = p50("gateway") - p50("direct");
  const pxAdded = p50("proxy") - p50("direct");
  out.push({
    id: "c1_added_p50",
    target: "≤ proxy's + 0.1 ms",
    value: gwAdded - pxAdded,
    pass: Number.isFinite(gwAdded - pxAdded) ? gwAdded <= pxAdded + 0.1 : null,
    text: `1 client: gateway's added p50 ${fixed(gwAdded, 3)} ms vs the bare proxy's ${fixed(pxAdded, 3)} ms: ${gwAdded - pxAdded >= 0 ? "+" : ""}${fixed(gwAdded - pxAdded, 3)} ms (target ≤ +0.100 ms)`,
  });

  const fc = f.features;
  for (const scenario of ["non-stream c=64", "stream burst c=64"]) {
    const rps = (arm: string) => int(fc?.scenarios[scenario]?.[arm]?.rps ?? NaN);
    const slug = scenario.startsWith("non") ? "c64" : "burst";
    for (const [arm, label, key] of [
      ["observed", "metrics + tracing every request", "observedVsPlain"],
      ["limited", "key with credit limit, rate limit, 9-detector guardrail", "limitedVsPlain"],
    ] as const) {
      const value = fc?.ratios[key][scenario] ?? NaN;
      const cpu = fc?.cpuRatios[key][scenario] ?? NaN;
      const detail = `${rps(arm)} / ${rps("plain")} req/s in paired rounds; by CPU per request ${fixed(cpu)}`;
      out.push(ratioCheck(`${arm}_vs_plain_${slug}`, `${scenario}, ${label} ÷ plain`, value, 0.95, undefined, detail, fc ? undefined : "phase did not run"));
    }
  }
  const multi = fc?.ratios.multiNodeVsEmbedded ?? NaN;
  const multiMissing = !fc ? "phase did not run" : fc.multiNode.startsWith("not measured") ? fc.multiNode.replace(/^not measured: /, "") : undefined;
  const multiRps = (arm: string) => int(fc?.scenarios["non-stream c=64, stores"]?.[arm]?.rps ?? NaN);
  const multiDetail = `${multiRps("multi-node")} / ${multiRps("embedded")} req/s in paired rounds; by gateway CPU per request ${fixed(fc?.cpuRatios.multiNodeVsEmbedded ?? NaN)}; ${fc?.multiNode ?? ""}`;
  out.push(ratioCheck("multi_node_vs_embedded", "non-stream c=64, multi-node (Postgres + Redis) ÷ embedded default", multi, 0.5, undefined, multiDetail, multiMissing));
  return out;
}
