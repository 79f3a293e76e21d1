/**
 * `bun bench/cloud-adapter-cpu.ts`: the CPU one call costs inside an adapter — building the upstream body, signing it
 * (SigV4 for Bedrock), reading the reply or translating the stream — for `bedrock` beside `anthropic`, its closest
 * existing adapter (same Claude answer, each in its own wire shapes: the matrix fixtures' `text` reply). The upstream is
 * a stub fetch answering from memory, so only the adapter's own work is measured: CPU microseconds per call (median of
 * CPU_BENCH_ROUNDS rounds of CPU_BENCH_N calls, after a warm-up), collected and streamed.
 */
import type { Warning } from "../core/model/warnings.ts";
import pino from "pino";
import { conformanceRequest } from "../core/sdk/conformance.ts";
import { createMemoryKv } from "../core/kv/memory.ts";
import { createModuleHelpers } from "../core/registry/module-helpers.ts";
import type { ProviderAdapter, UpstreamTarget } from "../core/registry/provider.ts";
import anthropic from "../providers/anthropic/index.ts";
import bedrock from "../providers/bedrock/index.ts";
import { fixture, type AdapterId } from "../test/support/fake-upstream/fixtures.ts";
import { encodeFrames } from "../test/support/fake-upstream/sse.ts";

const N = Number(process.env.CPU_BENCH_N ?? 2000);
const ROUNDS = Number(process.env.CPU_BENCH_ROUNDS ?? 7);

function stubFetch(adapter: AdapterId): typeof fetch {
  const f = fixture(adapter, "text");
  const json = JSON.stringify(f.json);
  const chunks = encodeFrames(f.sse, adapter === "bedrock" ? "eventstream" : "named").map((c) => (typeof c === "string" ? new TextEncoder().encode(c) : c));
  return (async (_url: unknown, init?: RequestInit) => {
    // The body is read as a real client would have it serialised.
    void (init?.body as string).length;
    const stream = typeof init?.body === "string" && (init.body.includes('"stream":true') || String(_url).endsWith("/converse-stream"));
    if (!stream) return new Response(json, { headers: { "content-type": "application/json" } });
    let i = 0;
    return new Response(new ReadableStream<Uint8Array>({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]!) : c.close()) }));
  }) as typeof fetch;
}

const targets: Record<"anthropic" | "bedrock", UpstreamTarget> = {
  anthropic: { providerId: "a", baseUrl: "https://api.anthropic.example/v1", apiKey: "sk-ant-bench", upstreamModel: "claude-sonnet-4-5", headers: {}, options: {} },
  bedrock: {
    providerId: "b",
    baseUrl: "",
    apiKey: undefined,
    upstreamModel: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    headers: {},
    options: {},
    region: "us-east-1",
    credentials: { access_key_id: "AKIABENCH0000000000", secret_access_key: "benchSecretKey/0123456789abcdefghijklmn" },
  },
};

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

async function measure(name: "anthropic" | "bedrock", adapter: ProviderAdapter, stream: boolean): Promise<number> {
  const clock = { now: () => Date.now() };
  const helpers = createModuleHelpers({ logger: pino({ level: "silent" }), fetch: stubFetch(name), kv: createMemoryKv(clock), clock, ids: { id: (p) => `${p}1` } });
  const target = name === "bedrock" && bedrock.prepareTarget ? bedrock.prepareTarget(targets.bedrock) : targets[name];
  const one = async () => {
    const request = conformanceRequest("What is the capital of France?", { stream });
    const call = { request, target, signal: new AbortController().signal, helpers, warn: (warning: Warning) => void request.warnings.push(warning) };
    if (!stream) return void (await adapter.generate(call));
    for await (const _ of await adapter.stream(call));
  };
  for (let i = 0; i < 300; i++) await one();
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = cpuUs();
    for (let i = 0; i < N; i++) await one();
    rounds.push((cpuUs() - before) / N);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
}

for (const stream of [false, true]) {
  const a = await measure("anthropic", anthropic, stream);
  const b = await measure("bedrock", bedrock, stream);
  console.log(`${stream ? "streamed " : "collected"}: anthropic ${a.toFixed(1)} µs CPU/call, bedrock ${b.toFixed(1)} µs CPU/call (${((b / a - 1) * 100).toFixed(0)}%)`);
}
