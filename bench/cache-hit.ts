/**
 * `bun bench/cache-hit.ts`: what the response cache (README "Response cache") saves and costs, through HTTP at c=1.
 * One gateway in this process on the built-in simulator (instant answers); requests alternate so the machine's load
 * weighs on both arms alike, and the paired differences give each figure:
 *
 * 1. hit vs plain: the same body with `X-Service-Cache: true` (a hit after the first) and without the header (a plain
 *    call to the simulator), non-streamed and streamed;
 * 2. miss vs plain: a fresh prompt each time, with the header (looked up, then kept) and without.
 *
 * Wall time per request (client and gateway in one process: both arms pay the client alike). CACHE_BENCH_N pairs per
 * phase (default 300); with REDIS_URL set the kv (and so the cache) is that Redis. All on 127.0.0.1; bounded by counts.
 */
import { startTestGateway } from "../test/support/gateway.ts";

const PAIRS = Number(process.env.CACHE_BENCH_N ?? 300);
const gw = await startTestGateway(process.env.REDIS_URL ? { env: { REDIS_URL: process.env.REDIS_URL } } : {});
console.log(`kv: ${process.env.REDIS_URL ? "Redis" : "memory"}; ${PAIRS} pairs per phase`);
const CACHE = { "x-service-cache": "true" };

async function timed(body: Record<string, unknown>, headers: Record<string, string>): Promise<number> {
  const start = Bun.nanoseconds();
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`bench: ${res.status}`);
  return (Bun.nanoseconds() - start) / 1e6;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function phase(name: string, a: (i: number) => Promise<number>, b: (i: number) => Promise<number>): Promise<void> {
  for (let i = 0; i < 30; i++) await a(-i - 1), await b(-i - 1); // warm-up
  const as: number[] = [];
  const bs: number[] = [];
  const diffs: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const first = i % 2 === 0;
    const x = first ? await a(i) : await b(i);
    const y = first ? await b(i) : await a(i);
    const [ta, tb] = first ? [x, y] : [y, x];
    as.push(ta);
    bs.push(tb);
    diffs.push(tb - ta);
  }
  console.log(`${name}: A p50 ${fmt(quantile(as, 0.5))} p90 ${fmt(quantile(as, 0.9))} | B p50 ${fmt(quantile(bs, 0.5))} p90 ${fmt(quantile(bs, 0.9))} | B − A paired median ${fmt(quantile(diffs, 0.5))}`);
}

const prompt = "Say something about caches. ".repeat(20);
const body = (stream: boolean, content = prompt) => ({ model: "simulator/small", max_tokens: 100, stream, messages: [{ role: "user", content }] });
const run = crypto.randomUUID().slice(0, 8);

await phase("non-streamed: A plain, B cache hit", () => timed(body(false), {}), () => timed(body(false), CACHE));
await phase("streamed:     A plain, B cache hit", () => timed(body(true), {}), () => timed(body(true), CACHE));
await phase("non-streamed: A plain, B cache miss (lookup + keep)", (i) => timed(body(false, `${prompt} a ${run} ${i}`), {}), (i) => timed(body(false, `${prompt} b ${run} ${i}`), CACHE));
await gw.close();
