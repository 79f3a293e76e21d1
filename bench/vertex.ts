/**
 * `bun bench/vertex.ts`: the CPU one call costs inside the `vertex` adapter against the plain adapter it builds on
 * (README "Google Vertex AI"): Gemini on Vertex beside `gemini`, Claude on Vertex beside `anthropic` — the same answer,
 * each in its own wire shapes (the matrix fixtures' `text` reply) — and Gemini on Vertex with a service-account key
 * (its token cached, as on every call but the first of each hour). The upstream is a stub fetch answering from memory,
 * so only the adapters' own work is measured: CPU microseconds per call (median of CPU_BENCH_ROUNDS rounds of
 * CPU_BENCH_N calls, after a warm-up), collected and streamed. What Vertex adds: the bearer token, and for Claude the
 * body's first field swapped and the URL chosen (providers/vertex/transport.ts).
 */
import type { Warning } from "../core/model/warnings.ts";
import { generateKeyPairSync } from "node:crypto";
import pino from "pino";
import { conformanceRequest } from "../core/sdk/conformance.ts";
import { createMemoryKv } from "../core/kv/memory.ts";
import { createModuleHelpers } from "../core/registry/module-helpers.ts";
import type { ProviderAdapter, UpstreamTarget } from "../core/registry/provider.ts";
import anthropic from "../providers/anthropic/index.ts";
import gemini from "../providers/gemini/index.ts";
import { vertexAdapter } from "../providers/vertex/index.ts";
import { fixture, type AdapterId } from "../test/support/fake-upstream/fixtures.ts";
import { encodeFrames } from "../test/support/fake-upstream/sse.ts";

const N = Number(process.env.CPU_BENCH_N ?? 2000);
const ROUNDS = Number(process.env.CPU_BENCH_ROUNDS ?? 7);
const vertex = vertexAdapter({ gemini, anthropic });

function stubFetch(wire: AdapterId): typeof fetch {
  const f = fixture(wire, "text");
  const json = JSON.stringify(f.json);
  const google = wire === "gemini" || wire === "vertex";
  const chunks = encodeFrames(f.sse, google ? "crlf" : "named").map((c) => (typeof c === "string" ? new TextEncoder().encode(c) : c));
  const token = JSON.stringify({ access_token: "ya29.bench", expires_in: 3599, token_type: "Bearer" });
  return (async (input: unknown, init?: RequestInit) => {
    const url = String(input);
    if (url.endsWith("/token")) return new Response(token, { headers: { "content-type": "application/json" } });
    void (init?.body as string).length;
    const stream = url.includes("alt=sse") || url.endsWith(":streamRawPredict") || (url.endsWith("/messages") && (init?.body as string).includes('"stream":true'));
    if (!stream) return new Response(json, { headers: { "content-type": "application/json" } });
    let i = 0;
    return new Response(new ReadableStream<Uint8Array>({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]!) : c.close()) }));
  }) as typeof fetch;
}

const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const vertexOptions = { project: "bench-project", access_token: "ya29.bench-static" };
const CASES: Array<{ name: string; adapter: ProviderAdapter; wire: AdapterId; target: UpstreamTarget }> = [
  { name: "gemini", adapter: gemini, wire: "gemini", target: { providerId: "g", baseUrl: "https://generativelanguage.example/v1beta", apiKey: "AIza-bench", upstreamModel: "gemini-2.5-flash", headers: {}, options: {} } },
  { name: "vertex gemini", adapter: vertex, wire: "vertex", target: { providerId: "v", baseUrl: "", apiKey: undefined, upstreamModel: "gemini-2.5-flash", headers: {}, options: vertexOptions, region: "us-east5" } },
  {
    name: "vertex gemini (key)",
    adapter: vertex,
    wire: "vertex",
    target: {
      providerId: "vk",
      baseUrl: "",
      apiKey: undefined,
      upstreamModel: "gemini-2.5-flash",
      headers: {},
      options: { project: "bench-project", service_account: { client_email: "bench@bench-project.iam.gserviceaccount.com", private_key: key }, token_url: "https://oauth2.bench.example/token" },
      region: "us-east5",
    },
  },
  { name: "anthropic", adapter: anthropic, wire: "anthropic", target: { providerId: "a", baseUrl: "https://api.anthropic.example/v1", apiKey: "sk-ant-bench", upstreamModel: "claude-sonnet-4-5", headers: {}, options: {} } },
  { name: "vertex claude", adapter: vertex, wire: "vertex-anthropic", target: { providerId: "vc", baseUrl: "", apiKey: undefined, upstreamModel: "claude-sonnet-4-5@20250929", headers: {}, options: vertexOptions, region: "us-east5" } },
];

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** One call's runner per case, warmed up. */
async function runner(c: (typeof CASES)[number], stream: boolean): Promise<() => Promise<void>> {
  const clock = { now: () => Date.now() };
  const helpers = createModuleHelpers({ logger: pino({ level: "silent" }), fetch: stubFetch(c.wire), kv: createMemoryKv(clock), clock, ids: { id: (p) => `${p}1` } });
  const target = c.adapter.prepareTarget ? c.adapter.prepareTarget(c.target) : c.target;
  const one = async () => {
    const request = conformanceRequest("What is the capital of France?", { stream });
    const call = { request, target, signal: new AbortController().signal, helpers, warn: (warning: Warning) => void request.warnings.push(warning) };
    if (!stream) return void (await c.adapter.generate(call));
    for await (const _ of await c.adapter.stream(call));
  };
  for (let i = 0; i < 300; i++) await one();
  return one;
}

for (const stream of [false, true]) {
  const runners = await Promise.all(CASES.map((c) => runner(c, stream)));
  const samples = CASES.map((): number[] => []);
  // Rounds interleave the cases (in alternating order), so drift in the machine's load falls on all of them alike.
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [...CASES.keys()] : [...CASES.keys()].reverse();
    for (const k of order) {
      const before = cpuUs();
      for (let i = 0; i < N; i++) await runners[k]!();
      samples[k]!.push((cpuUs() - before) / N);
    }
  }
  const results = new Map(CASES.map((c, k) => [c.name, samples[k]!.sort((a, b) => a - b)[Math.floor(samples[k]!.length / 2)]!]));
  const line = (name: string, base: string) => {
    const v = results.get(name)!;
    const b = results.get(base)!;
    return `${name} ${v.toFixed(1)} µs (${v >= b ? "+" : ""}${(v - b).toFixed(1)} µs vs ${base} ${b.toFixed(1)})`;
  };
  console.log(`${stream ? "streamed " : "collected"}: ${line("vertex gemini", "gemini")}; ${line("vertex gemini (key)", "gemini")}; ${line("vertex claude", "anthropic")}`);
}
