/**
 * `bun bench/ab.ts <other-checkout>`: an interleaved A/B of two trees' gateways, for changes on the hot path (with
 * `AB_KIND=<kind>`, this tree's provider is that kind of the `openai` adapter: a kind's cost against the plain one). Both
 * gateways (this tree's and the other checkout's bench/gateway-server.ts, bundled like `npm start`) run at once in
 * front of one simulator, each pinned to the same core as `npm run bench` pins its gateway (`AB_CORE`, default 1;
 * empty: not pinned); short rounds of the same load alternate between them, so whatever else the machine does weighs
 * on both alike. Per scenario (bench/fleet.ts: non-streamed c=64, a burst of short streams c=64, long streams c=16)
 * it reports the gateway process's CPU per request (median over rounds), per chunk for the long streams, and req/s.
 * The feature-cost variants (bench/feature-cost.ts), on both trees alike: `AB_KEY=limited` sends with a key that has a
 * credit limit, a rate limit and a guardrail with every built-in detector (flag, input and output); `AB_OBSERVE=on`
 * runs both gateways with metrics and every request traced to an OTLP sink (`off`: metrics off too). `AB_SCENARIOS`
 * picks scenarios by part of their names.
 * All traffic goes to 127.0.0.1; every round is bounded in time, so the run stops by itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUILTIN_SLUGS } from "../core/guardrails/detectors/builtins.ts";
import { ADMIN_KEY, bundleGateway, Fleet, SCENARIOS } from "./fleet.ts";
import { cpuMsOf, runForDuration, type RequestSpec } from "./load.ts";
import { BODIES, countEvents } from "./requests.ts";

const other = resolve(process.argv[2] ?? "");
const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.AB_ROUND_MS ?? 1500);
const CORE = process.env.AB_CORE ?? (cpus().length > 1 ? "1" : "");
const dir = mkdtempSync(join(tmpdir(), "gateway-ab-"));
const fleet = new Fleet();

try {
  const sim = await fleet.spawn(join(import.meta.dir, "sim-server.ts"), {});
  const observe = process.env.AB_OBSERVE;
  const sink = observe === "on" ? await fleet.spawn(join(import.meta.dir, "otlp-sink.ts"), {}) : undefined;
  const env: Record<string, string> = { BENCH_UPSTREAM: String(sim.url), ...(observe ? { BENCH_OBSERVE: observe } : {}), ...(sink ? { BENCH_OTLP: String(sink.url) } : {}) };
  const tree = async (root: string, name: string, slug: string, extra: Record<string, string> = {}) =>
    fleet.gateway(await bundleGateway(root, join(dir, slug)), name, join(dir, `${slug}-data`), { ...env, ...extra }, CORE);
  // `AB_KIND=deepseek`: B's provider is that kind of the openai adapter (A stays the plain adapter).
  const kind = process.env.AB_KIND;
  const targets = [await tree(other, "A (other)", "a"), await tree(resolve(import.meta.dir, ".."), kind ? `B (${kind})` : "B (this tree)", "b", kind ? { BENCH_KIND: kind } : {})];
  if (process.env.AB_KEY === "limited") for (const target of targets) target.headers = { ...target.headers, authorization: `Bearer ${await limitedKey(target.url)}` };
  // The events of one long stream, straight from the upstream (the same bytes reach both gateways).
  const events = countEvents(await (await fetch(`${sim.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: BODIES.long })).text());
  console.log(`${process.env.AB_KEY === "limited" ? "limited key (credit limit, rate limit, every built-in detector); " : ""}${observe ? `observe ${observe}; ` : ""}A = ${other}, B = this tree; gateways ${CORE ? `pinned to core ${CORE}` : "not pinned"}; ${ROUNDS} rounds of ${ROUND_MS} ms; a long stream has ${events} events`);
  // `AB_SCENARIOS=non-stream,burst`: only the scenarios whose names contain one of these.
  const only = process.env.AB_SCENARIOS?.split(",").filter(Boolean);
  for (const scenario of SCENARIOS.filter((s) => !only || only.some((o) => s.name.includes(o)))) {
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      // Alternate which goes first; round -1 warms both up and is not counted.
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const spec: RequestSpec = { url: target.url, headers: target.headers, body: scenario.body, stream: scenario.stream };
        const before = cpuMsOf(target.pid);
        const result = await runForDuration(spec, scenario.concurrency, ROUND_MS);
        if (result.errors > 0) console.log(`${scenario.name}: ${target.name} had ${result.errors} errors in a round: ${result.errorSamples.join("; ")}`);
        if (round < 0) continue;
        cpu.get(target.name)!.push(((cpuMsOf(target.pid) - before) * 1000) / Math.max(1, result.requests));
        rps.get(target.name)!.push(result.rps);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (const target of targets) {
      const c = cpu.get(target.name)!;
      const perChunk = scenario.perChunk ? `  CPU µs/chunk ${(median(c) / events).toFixed(2)}` : "";
      console.log(`${scenario.name.padEnd(24)} ${target.name.padEnd(14)} CPU µs/req median ${median(c).toFixed(0).padStart(6)} (${Math.min(...c).toFixed(0)}–${Math.max(...c).toFixed(0)})${perChunk}  req/s median ${median(rps.get(target.name)!).toFixed(0)}`);
    }
    const [a, b] = targets.map((t) => median(cpu.get(t.name)!));
    console.log(`${scenario.name.padEnd(24)} B − A CPU ${b! - a! >= 0 ? "+" : ""}${(b! - a!).toFixed(0)} µs/req (${(((b! - a!) / a!) * 100).toFixed(1)} %)`);
  }
} finally {
  fleet.killAll();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

/** A key as bench/feature-cost.ts's limited one, made on the gateway whose chat URL is `chatUrl`. */
async function limitedKey(chatUrl: string): Promise<string> {
  const base = chatUrl.replace(/\/chat\/completions$/, "");
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (response.status !== 200 && response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { key?: string; data: { hash?: string; id?: string } };
  };
  const key = await post("/keys", { name: "ab limited", limit: 1000, rate_limit: { requests: 1_000_000_000, tokens: 1_000_000_000, interval_seconds: 60 } });
  const guardrail = await post("/guardrails", { name: "ab: every built-in detector", content_filter_builtins: BUILTIN_SLUGS.map((slug) => ({ slug, action: "flag" })), apply_to: "both" });
  await post(`/guardrails/${guardrail.data.id}/assignments/keys`, { key_hashes: [key.data.hash] });
  return key.key!;
}
