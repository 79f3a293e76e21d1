/**
 * `bun bench/guardrails.ts`: what guardrails with the built-in engines cost.
 *
 * 1. In process: the input check (`guardRequest`) of a policy with all nine built-ins (action `flag`, so every
 *    detector reads the whole prompt and nothing short-circuits) on a 4,000-token prompt (~16 KB of English prose
 *    with a few numbers, addresses and names in it), per call; and each detector alone on the same text.
 * 2. Through HTTP, A/B in the same run: one gateway (in this process, on the built-in simulator), two inference keys,
 *    one with that guardrail (`apply_to: both`) and one without; non-streamed requests with the 4k-token prompt
 *    alternate between the keys; the paired latency differences (guarded − plain) give the added cost.
 * 3. Time to first token of streamed requests (chunks 1 ms apart), the same way: the guarded key's stream is checked
 *    as it flows (flag filters: nothing held back); two more keys whose filters redact (email, phone and secrets;
 *    all nine) show what holding back costs: a redacted stream's first token waits until no finding can begin in it.
 *
 * 4. In process, per streamed delta: an answer of 1,000 words (nothing to find in them), one word per delta, through the output guard
 *    (core/guardrails/output-stream.ts) with flag filters (nothing held), block filters (all nine, each alone),
 *    redact filters, and an operator's pattern blocking; beside the bare stream (what a request without output filters costs: the guard is
 *    not applied), in CPU time per delta. With GUARDRAILS_BENCH_AB=<another checkout> its guard runs too, alternated
 *    with this tree's in the same process (A = that checkout, B = this tree).
 *
 * All on 127.0.0.1; every phase is bounded by a count, so the run stops by itself. Knobs: GUARDRAILS_BENCH_N
 * (request pairs per HTTP phase, default 400), GUARDRAILS_BENCH_PHASES (`input,http,stream` by default).
 */
import { BUILTIN_DETECTORS, BUILTIN_SLUGS } from "../core/guardrails/detectors/builtins.ts";
import { guardRequest } from "../core/guardrails/input.ts";
import { compilePolicy } from "../core/guardrails/policy.ts";
import { filtersFor } from "../core/guardrails/scan.ts";
import type { Filter } from "../core/guardrails/policy.ts";
import type { StreamEvent } from "../core/model/events.ts";
import type { CanonicalRequest } from "../core/model/request.ts";
import type { GuardrailAction, GuardrailRecord } from "../core/store/types.ts";
import { newGuardrail } from "../core/store/types/guardrails.ts";
import { ADMIN_KEY, startTestGateway } from "../test/support/gateway.ts";

const PAIRS = Number(process.env.GUARDRAILS_BENCH_N ?? 400);

/** ~4,000 tokens of prose (the simulator counts one token per word) with the odd number, name and address. */
function prompt(): string {
  const words = "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no what up out who them some could into".split(" ");
  const extras = ["Maria Gonzalez", "221B Baker Street", "version 1.2.3", "order 123456", "on 2024-05-17", "room 12", "see section 3.2.1", "call at 5pm"];
  const out: string[] = [];
  let seed = 7;
  for (let i = 0; i < 4_000; i++) {
    seed = (seed * 48271) % 2147483647;
    out.push(i % 97 === 0 ? extras[(i / 97) % extras.length]! : words[seed % words.length]!);
    if (i % 17 === 16) out[out.length - 1] += ".";
  }
  return out.join(" ");
}

const TEXT = prompt();
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * p))]!;
const fmt = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

function record(action: "flag" | "redact" | "block", applyTo: GuardrailRecord["applyTo"]): GuardrailRecord {
  const builtins = BUILTIN_SLUGS.map((slug) => ({ slug, action }));
  return { ...newGuardrail("grd_bench", "ws", "bench", { contentFilterBuiltins: builtins, applyTo }), createdAt: 0, updatedAt: 0 };
}

async function inProcess(): Promise<void> {
  const policy = compilePolicy([{ record: record("flag", "input"), scope: "key" }]);
  const filters = filtersFor(policy.filters, "input");
  const request = (): CanonicalRequest => ({
    format: "chat",
    model: "simulator/small",
    models: [],
    system: [{ type: "text", text: "You are a helpful assistant." }],
    messages: [{ role: "user", parts: [{ type: "text", text: TEXT }] }],
    tools: [],
    sampling: {},
    stream: false,
    plugins: [],
    warnings: [],
    original: {},
  });
  const times: number[] = [];
  for (let i = 0; i < 2_200; i++) {
    const r = request();
    const started = performance.now();
    await guardRequest(r, filters, []);
    if (i >= 200) times.push(performance.now() - started);
  }
  console.log(`input check, all 9 built-ins, ${TEXT.length} chars (${TEXT.split(" ").length} words): p50 ${fmt(median(times))}, p90 ${fmt(pct(times, 0.9))}, p99 ${fmt(pct(times, 0.99))}`);
  for (const [slug, detector] of BUILTIN_DETECTORS) {
    const t: number[] = [];
    for (let i = 0; i < 600; i++) {
      const started = performance.now();
      detector.find(TEXT);
      if (i >= 100) t.push(performance.now() - started);
    }
    console.log(`  ${slug.padEnd(24)} p50 ${fmt(median(t))}`);
  }
}

async function http(): Promise<void> {
  const gw = await startTestGateway();
  try {
    const keys: Record<string, string> = {};
    const arms: ReadonlyArray<readonly [string, "flag" | "redact" | undefined, readonly string[]]> = [
      ["plain", undefined, []],
      ["guarded", "flag", BUILTIN_SLUGS],
      ["redact-3", "redact", ["email", "phone", "secrets"]],
      ["redact-9", "redact", BUILTIN_SLUGS],
    ];
    for (const [name, action, slugs] of arms) {
      const created = (await (await gw.request("/keys", { method: "POST", key: ADMIN_KEY, json: { name } })).json()) as { key: string; data: { hash: string } };
      keys[name] = created.key;
      if (!action) continue;
      const builtins = slugs.map((slug) => ({ slug, action }));
      const g = (await (await gw.request("/guardrails", { method: "POST", key: ADMIN_KEY, json: { name, content_filter_builtins: builtins, apply_to: "both" } })).json()) as { data: { id: string } };
      await gw.request(`/guardrails/${g.data.id}/assignments/keys`, { method: "POST", key: ADMIN_KEY, json: { key_hashes: [created.data.hash] } });
    }
    // Streams pace their chunks (1 ms apart, as a real upstream does): the time to the first one is then the time to
    // the first token, not the time to produce the whole answer (the simulator could send it all at once).
    const payload = (stream: boolean) => JSON.stringify({ model: "simulator/small", stream, messages: [{ role: "user", content: `${TEXT} [sim tokens=${stream ? "60 delay=1" : 16}]` }] });
    const once = async (key: string, stream: boolean): Promise<number> => {
      const started = performance.now();
      const res = await gw.request("/chat/completions", { method: "POST", key, body: payload(stream), headers: { "content-type": "application/json" } });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      if (!stream) {
        await res.arrayBuffer();
        return performance.now() - started;
      }
      // Time to the first chunk that carries text.
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let seen = "";
      let first = -1;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        seen += decoder.decode(chunk.value, { stream: true });
        if (first < 0 && /"content":"[^"]/.test(seen)) first = performance.now() - started;
      }
      return first;
    };
    for (const stream of [false, true]) {
      const arms = stream ? ["plain", "guarded", "redact-3", "redact-9"] : ["plain", "guarded"];
      const samples: Record<string, number[]> = Object.fromEntries(arms.map((a) => [a, []]));
      for (let i = 0; i < PAIRS + 50; i++) {
        // Alternate the order so neither arm always runs first.
        const order = i % 2 === 0 ? arms : [...arms].reverse();
        for (const arm of order) {
          const ms = await once(keys[arm]!, stream);
          if (i >= 50) samples[arm]!.push(ms);
        }
      }
      const label = stream ? "streamed, time to first token" : "non-streamed, latency";
      const base = samples.plain!;
      for (const arm of arms) {
        const diffs = samples[arm]!.map((v, i) => v - base[i]!);
        console.log(`${label} ${arm.padEnd(9)} p50 ${median(samples[arm]!).toFixed(3)} ms${arm === "plain" ? "" : `; paired difference vs plain p50 ${median(diffs).toFixed(3)} ms (p10 ${pct(diffs, 0.1).toFixed(3)}, p90 ${pct(diffs, 0.9).toFixed(3)})`}`);
      }
    }
  } finally {
    await gw.close();
  }
}

/** The output guard of the checkout at `root` (its own detectors and guard: loaded from there). */
async function guardOf(root: string) {
  const at = (path: string) => `${root}/core/guardrails/${path}`;
  const { guardStream } = (await import(at("output-stream.ts"))) as typeof import("../core/guardrails/output-stream.ts");
  const builtins = (await import(at("detectors/builtins.ts"))) as typeof import("../core/guardrails/detectors/builtins.ts");
  const { customDetector } = (await import(at("detectors/custom.ts"))) as typeof import("../core/guardrails/detectors/custom.ts");
  return { guardStream, builtins, customDetector };
}

async function streamedPerDelta(): Promise<void> {
  const trees: Array<[string, string]> = [["B", new URL("..", import.meta.url).pathname.replace(/\/$/, "")]];
  if (process.env.GUARDRAILS_BENCH_AB) trees.unshift(["A", process.env.GUARDRAILS_BENCH_AB.replace(/\/$/, "")]);
  const guards = await Promise.all(trees.map(async ([name, root]) => ({ name, ...(await guardOf(root)) })));
  // Prose with nothing to find (most answers): every filter reads every delta and none ends or rewrites the stream.
  const words = TEXT.split(" ").filter((w) => /^[a-z]+\.?$/.test(w)).slice(0, 1_000);
  const events: StreamEvent[] = [
    { type: "start", id: "r", model: "m", provider: "p", created: 0 },
    { type: "text-start", id: "t" },
    ...words.map((w, i): StreamEvent => ({ type: "text-delta", id: "t", delta: i === 0 ? w : ` ${w}` })),
    { type: "text-end", id: "t" },
    { type: "finish", finish: { reason: "stop" } },
  ];
  async function* source(): AsyncIterable<StreamEvent> {
    yield* events;
  }
  const guardrail = { id: "grd_bench", name: "bench", scope: "api-key" as const };
  type Guard = (typeof guards)[number];
  const filtersOf = (g: Guard, action: GuardrailAction, slugs: readonly string[]): Filter[] =>
    slugs.map((slug) => ({ guardrail, detector: g.builtins.BUILTIN_DETECTORS.get(slug)!, action, scanScope: "all_messages", input: false, output: true }));
  const arms: ReadonlyArray<[string, ((g: Guard) => Filter[]) | undefined]> = [
    ["no output filter", undefined],
    ["flag all nine", (g) => filtersOf(g, "flag", BUILTIN_SLUGS)],
    ["block all nine", (g) => filtersOf(g, "block", BUILTIN_SLUGS)],
    ["redact email, phone, secrets", (g) => filtersOf(g, "redact", ["email", "phone", "secrets"])],
    ["redact all nine", (g) => filtersOf(g, "redact", BUILTIN_SLUGS)],
    ...BUILTIN_SLUGS.map((slug): [string, (g: Guard) => Filter[]] => [`block ${slug}`, (g) => filtersOf(g, "block", [slug])]),
    ["block a pattern", (g) => [{ guardrail, detector: g.customDetector("\\bforbidden-word\\b|jul[a-z]+", "P", 0), action: "block", scanScope: "all_messages", input: false, output: true }]],
  ];
  const samples = new Map<string, number[]>();
  for (let round = 0; round < 33; round++) {
    for (const [arm, filters] of arms) {
      const order = round % 2 === 0 ? guards : [...guards].reverse();
      for (const g of order) {
        const stream = filters ? g.guardStream(source(), filters(g), { pipeline: [] }) : source();
        // CPU time, not wall time: on a shared machine it is far less disturbed by the other processes.
        const started = process.cpuUsage();
        for await (const _ of stream);
        const used = process.cpuUsage(started);
        const ns = ((used.user + used.system) * 1e3) / words.length;
        if (round >= 3) samples.set(`${arm}|${g.name}`, [...(samples.get(`${arm}|${g.name}`) ?? []), ns]);
      }
    }
  }
  for (const [arm] of arms) {
    const line = guards.map((g) => `${g.name} ${median(samples.get(`${arm}|${g.name}`)!).toFixed(0)} ns`).join(", ");
    const ab = guards.length === 2 ? `; B − A ${(median(samples.get(`${arm}|B`)!) - median(samples.get(`${arm}|A`)!)).toFixed(0)} ns` : "";
    console.log(`streamed, per delta (${words.length} one-word deltas) ${arm.padEnd(28)} ${line}${ab}`);
  }
}

const PHASES = (process.env.GUARDRAILS_BENCH_PHASES ?? "input,http,stream").split(",");
if (PHASES.includes("input")) await inProcess();
if (PHASES.includes("http")) await http();
if (PHASES.includes("stream")) await streamedPerDelta();
