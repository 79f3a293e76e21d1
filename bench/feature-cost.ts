/**
 * The part of `npm run bench` that prices features against a plain request, all in ONE gateway process (bundled
 * bench/gateway-variants.ts, pinned like the main gateway): separate processes of the same build differ by up to a
 * third in CPU per request on a small machine (README "Operating the gateway", Cost), far more than the 5 % to resolve.
 *
 *   plain      metrics off, no tracing; a key with no limits and no guardrail
 *   observed   metrics on and every request traced to an OTLP sink (bench/otlp-sink.ts, its own process)
 *   limited    the plain gateway, a key with a credit limit, a rate limit and a guardrail with every built-in
 *              detector (action `flag`, input and output: every detector reads every request and reply)
 *   embedded   the default configuration (metrics on), SQLite file and memory kv: what `npm start` runs
 *   multi-node the default configuration on Postgres and Redis (bench/shared-stores.ts), when both are reachable
 *
 * Rounds of the same load rotate between plain, observed and limited (non-streamed and a burst of short streams),
 * and, apart, between embedded and multi-node (non-streamed), with a pause after each run so that what Postgres does
 * after a run (or a collection) does not land on the next arm (bench/rounds.ts). Each throughput ratio is the median
 * over rounds of one arm's req/s against the other's in the same round; beside it, the ratio of CPU per request (the
 * throughput a saturated core would give: far less disturbed by what else the machine runs).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SLUGS } from "../core/guardrails/detectors/builtins.ts";
import type { Child } from "./child-process.ts";
import type { RequestSpec } from "./load.ts";
import { BODIES, MODEL } from "./requests.ts";
import { pairedRatio, rotate, type RoundsResult } from "./rounds.ts";
import type { SharedStores } from "./shared-stores.ts";

export interface FeatureCostContext {
  dir: string;
  upstream: string;
  adminKey: string;
  /** Starts a bench child: `pin` puts it on the servers' core. */
  launch(name: string, entry: string, env: Record<string, string>, pin: boolean): Promise<Child>;
  bundle(entryFile: string, outdir: string): Promise<string>;
  stores: SharedStores | { skip: string };
  rounds: number;
  roundMs: number;
  log(message: string): void;
}

export interface FeatureCost {
  /** Scenario → arm → figures. */
  scenarios: Record<string, Record<string, RoundsResult>>;
  /** Paired throughput ratios (median over rounds). */
  ratios: {
    observedVsPlain: Record<string, number>;
    limitedVsPlain: Record<string, number>;
    multiNodeVsEmbedded: number;
  };
  /** The same pairs as the ratio of CPU per request (plain's ÷ the arm's): the throughput ratio of a saturated core. */
  cpuRatios: {
    observedVsPlain: Record<string, number>;
    limitedVsPlain: Record<string, number>;
    multiNodeVsEmbedded: number;
  };
  /** The multi-node stores measured, or why not. */
  multiNode: string;
}

export async function measureFeatureCost(ctx: FeatureCostContext): Promise<FeatureCost> {
  const shared = "databaseUrl" in ctx.stores ? ctx.stores : undefined;
  const variants = ["plain:off", "observed:on", "embedded:", ...(shared ? ["multi::shared"] : [])];
  for (const v of variants) mkdirSync(join(ctx.dir, "variants", v.split(":")[0]!), { recursive: true });
  const sink = await ctx.launch("OTLP sink", join(import.meta.dir, "otlp-sink.ts"), {}, false);
  const entry = await ctx.bundle("bench/gateway-variants.ts", join(ctx.dir, "variants-bundle"));
  const gateways = await ctx.launch(
    "gateway variants",
    entry,
    {
      BENCH_DIR: join(ctx.dir, "variants"),
      BENCH_UPSTREAM: ctx.upstream,
      BENCH_MODEL: MODEL,
      BENCH_ADMIN_KEY: ctx.adminKey,
      BENCH_OTLP: String(sink.info.url),
      BENCH_VARIANTS: variants.join(","),
      BENCH_RUN_ID: crypto.randomUUID().slice(0, 8),
      ...(shared ? { BENCH_DATABASE_URL: shared.databaseUrl, BENCH_REDIS_URL: shared.redisUrl } : {}),
    },
    true,
  );
  const ports = gateways.info.ports as Record<string, number>;
  const base = (variant: string) => `http://127.0.0.1:${ports[variant]}/api/v1`;
  const admin = { authorization: `Bearer ${ctx.adminKey}`, "content-type": "application/json" };
  const post = async (variant: string, path: string, body: unknown) => {
    const response = await fetch(`${base(variant)}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) });
    if (response.status !== 200 && response.status !== 201) throw new Error(`POST ${path} on ${variant} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { key?: string; data: { hash?: string; id?: string } };
  };
  const keyOn = async (variant: string, extra: Record<string, unknown> = {}) => post(variant, "/keys", { name: `bench ${variant}`, ...extra });

  const limited = await keyOn("plain", {
    // Far above what a run spends (~10⁻⁵ USD a request) or sends, so every request pays the checks and none is refused.
    limit: 1000,
    rate_limit: { requests: 1_000_000_000, tokens: 1_000_000_000, interval_seconds: 60 },
  });
  const guardrail = await post("plain", "/guardrails", {
    name: "bench: every built-in detector",
    content_filter_builtins: BUILTIN_SLUGS.map((slug) => ({ slug, action: "flag" })),
    apply_to: "both",
  });
  await post("plain", `/guardrails/${guardrail.data.id}/assignments/keys`, { key_hashes: [limited.data.hash] });

  const arm = async (name: string, variant: string, key?: string) => {
    const secret = key ?? (await keyOn(variant)).key!;
    const headers = { "content-type": "application/json", authorization: `Bearer ${secret}` };
    return (body: string, stream: boolean) => ({ name, pid: gateways.pid, spec: { url: `${base(variant)}/chat/completions`, headers, body, stream } satisfies RequestSpec });
  };
  const arms = {
    plain: await arm("plain", "plain"),
    observed: await arm("observed", "observed"),
    limited: await arm("limited", "plain", limited.key!),
    embedded: await arm("embedded", "embedded"),
    ...(shared ? { "multi-node": await arm("multi-node", "multi") } : {}),
  };

  const scenarios: FeatureCost["scenarios"] = {};
  const plan: Array<[string, string, boolean, string[], number]> = [
    ["non-stream c=64", BODIES.plain, false, ["plain", "observed", "limited"], 200],
    ["stream burst c=64", BODIES.burst, true, ["plain", "observed", "limited"], 200],
    ...(shared ? [["non-stream c=64, stores", BODIES.plain, false, ["embedded", "multi-node"], 500] as [string, string, boolean, string[], number]] : []),
  ];
  for (const [scenario, body, stream, names, gapMs] of plan) {
    const targets = names.map((n) => arms[n as keyof typeof arms]!(body, stream));
    ctx.log(`feature cost, ${scenario}: ${names.join(", ")} (${ctx.rounds} rounds of ${ctx.roundMs} ms each, after a warm-up round)`);
    await rotate(targets, 64, 1, Math.min(1000, ctx.roundMs), gapMs);
    const results = await rotate(targets, 64, ctx.rounds, ctx.roundMs, gapMs);
    scenarios[scenario] = Object.fromEntries(results);
  }
  const rps = (scenario: string, name: string) => scenarios[scenario]?.[name]?.roundRps ?? [];
  const ratio = (scenario: string, a: string, b: string) => pairedRatio(rps(scenario, a), rps(scenario, b));
  const cpu = (scenario: string, a: string, b: string) => (scenarios[scenario]?.[b]?.cpuUsPerRequest ?? NaN) / (scenarios[scenario]?.[a]?.cpuUsPerRequest ?? NaN);
  const mains = plan.slice(0, 2).map(([s]) => s);
  return {
    scenarios,
    ratios: {
      observedVsPlain: Object.fromEntries(mains.map((s) => [s, ratio(s, "observed", "plain")])),
      limitedVsPlain: Object.fromEntries(mains.map((s) => [s, ratio(s, "limited", "plain")])),
      multiNodeVsEmbedded: shared ? ratio("non-stream c=64, stores", "multi-node", "embedded") : NaN,
    },
    cpuRatios: {
      observedVsPlain: Object.fromEntries(mains.map((s) => [s, cpu(s, "observed", "plain")])),
      limitedVsPlain: Object.fromEntries(mains.map((s) => [s, cpu(s, "limited", "plain")])),
      multiNodeVsEmbedded: shared ? cpu("non-stream c=64, stores", "multi-node", "embedded") : NaN,
    },
    multiNode: "skip" in ctx.stores ? `not measured: ${ctx.stores.skip}` : ctx.stores.label,
  };
}
