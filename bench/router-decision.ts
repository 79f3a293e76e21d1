/**
 * `bun bench/router-decision.ts`: how long the auto-router takes to decide, for a prompt of about 10,000 tokens
 * (40,000 characters of prose and code) over a catalog of 24 models, in a real gateway (the built-in simulator
 * answers). Two figures per run, median and p99 over ROUTER_BENCH_N requests after a warm-up:
 *   - `classify`: the classifier alone, in this process (plugins/router-kit/classify.ts);
 *   - `decision`: the router's `decision_ms` from `service_metadata` (classification, candidates, ranking; routing
 *     the chosen model is not in it) and `pre`: the whole hook, measured around it here by timing requests with and
 *     without the router (same prompt, `simulator/small` named directly), as the difference of medians.
 * Everything stays on 127.0.0.1.
 */
import { conformanceRequest } from "../core/sdk/conformance.ts";
import { classify } from "../plugins/router-kit/classify.ts";
import { startTestGateway } from "../test/support/gateway.ts";

const N = Number(process.env.ROUTER_BENCH_N ?? 300);
const paragraph = "The quarterly report covers revenue, costs and the outlook for the next year in some detail. ";
const code = "function add(a, b) {\n  return a + b;\n}\n";
const prompt = `${paragraph.repeat(300)}\n\`\`\`js\n${code.repeat(300)}\`\`\`\nWhy does this code fail?`;

const models = Array.from({ length: 24 }, (_, i) => ({
  id: `sim/m${i}`,
  upstream_model: i % 2 === 0 ? "small" : "large",
  pricing: { prompt: (i + 1) * 1e-7, completion: (i + 1) * 4e-7 },
  context_length: 200_000,
}));
const gw = await startTestGateway({ file: { providers: [{ id: "sim", adapter: "simulator", models }] } });

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p99: sorted[Math.floor(sorted.length * 0.99)]! };
};
const round = (v: number) => Math.round(v * 1000) / 1000;

const request = conformanceRequest(prompt);
const classifyMs: number[] = [];
for (let i = 0; i < N + 50; i++) {
  const start = performance.now();
  classify(request);
  if (i >= 50) classifyMs.push(performance.now() - start);
}

async function time(model: string): Promise<{ ms: number; decision?: number }> {
  const start = performance.now();
  const res = await gw.request("/chat/completions", {
    method: "POST",
    json: { model, max_tokens: 16, messages: [{ role: "user", content: prompt }] },
    headers: { "x-service-metadata": "enabled" },
  });
  const body = (await res.json()) as { service_metadata?: { pipeline?: Array<{ name: string; data?: { decision_ms?: number } }> } };
  const ms = performance.now() - start;
  const decision = body.service_metadata?.pipeline?.find((e) => e.name === "auto-router")?.data?.decision_ms;
  return decision === undefined ? { ms } : { ms, decision };
}

const routed: number[] = [];
const direct: number[] = [];
const decisions: number[] = [];
for (let i = 0; i < N + 50; i++) {
  // Alternating which goes first, so whatever else the machine does weighs on both alike.
  let a: Awaited<ReturnType<typeof time>>;
  let b: Awaited<ReturnType<typeof time>>;
  if (i % 2 === 0) {
    a = await time("service/auto");
    b = await time("sim/m0");
  } else {
    b = await time("sim/m0");
    a = await time("service/auto");
  }
  if (i < 50) continue;
  routed.push(a.ms);
  direct.push(b.ms);
  if (a.decision !== undefined) decisions.push(a.decision);
}
await gw.close();

const c = stats(classifyMs);
const d = stats(decisions);
console.log(`classify (10k-token prompt):  median ${round(c.median)} ms, p99 ${round(c.p99)} ms`);
console.log(`router decision (24 models): median ${round(d.median)} ms, p99 ${round(d.p99)} ms`);
console.log(`whole request, routed − direct (median): ${round(stats(routed).median - stats(direct).median)} ms`);
