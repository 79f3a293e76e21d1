/**
 * The response cache (README "Response cache") through HTTP on the embedded default (SQLite, memory kv), with the
 * official `openai`, `@anthropic-ai/sdk` and `@openrouter/sdk` clients. The model is a loopback upstream that counts
 * the calls it gets, so a hit is seen by the upstream not being asked again.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { hashSecret } from "../../../core/auth/key-material.ts";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatOnce, sdkClient } from "../../support/openrouter-sdk.ts";

type Json = Record<string, any>;

const MODEL = "acme/cached";
const PRICING = { prompt: 0.000001, completion: 0.000002 };
let up: FaultUpstream;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let n = 0;
/** A prompt no other test sends, so every test starts from a miss. */
const fresh = (label: string) => `${label} #${++n} ${crypto.randomUUID()}`;
const CACHE = { headers: { "X-Service-Cache": "true", "X-Service-Metadata": "enabled" } };

beforeAll(async () => {
  up = startFaultUpstream("acme");
  gw = await startTestGateway({
    file: { simulator: true, providers: [{ id: "acme", adapter: "openai", base_url: up.url, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING }] }] },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  up.stop();
});
beforeEach(() => {
  up.fallback = { kind: "ok" };
});

const calls = () => up.requests.length;
const chat = (content: string, extra: Json = {}) => ({ model: MODEL, messages: [{ role: "user" as const, content }], ...extra });

/** The distinct event kinds of a stream in order of first appearance (a replay sends each text in one delta). */
function kinds(events: readonly string[]): string[] {
  return [...new Set(events)];
}

describe("chat completions with the openai client", () => {
  test("a miss, then a hit the upstream never sees: a new generation with zero usage and cost, the same answer", async () => {
    const body = chat(fresh("hello"));
    const before = calls();
    const first = await openai.chat.completions.create(body, CACHE).withResponse();
    expect(first.response.headers.get("x-service-cache")).toBe("MISS");
    expect((first.data as Json).service_metadata.cache).toEqual({ status: "miss" });
    expect(first.data.usage!.completion_tokens).toBeGreaterThan(0);
    const second = await openai.chat.completions.create(body, CACHE).withResponse();
    expect(calls()).toBe(before + 1);
    expect(second.response.headers.get("x-service-cache")).toBe("HIT");
    expect(second.response.headers.get("x-service-cache-source-id")).toBe(first.data.id);
    expect(second.data.id).not.toBe(first.data.id);
    expect(second.data.id).toBe(second.response.headers.get("x-generation-id")!);
    expect(second.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
    expect(second.data.usage!.prompt_tokens).toBe(0);
    expect(second.data.usage!.completion_tokens).toBe(0);
    expect((second.data.usage as Json).cost).toBe(0);
    const metadata = (second.data as Json).service_metadata;
    expect(metadata.cache).toEqual({ status: "hit" });
    expect(metadata.attempt).toBe(0);
    // Recorded as a generation of its own, at no cost, saying where the answer came from.
    await gw.gateway.deps.ledger.flush();
    const record = ((await (await gw.request(`/generation?id=${second.data.id}`, { key: ADMIN_KEY })).json()) as Json).data;
    expect(record.total_cost).toBe(0);
    expect(record.pipeline).toEqual([{ type: "cache", name: "response-cache", status: "hit", source_id: first.data.id, age_seconds: expect.any(Number) }]);
  });

  test("without the header nothing is cached or said; user, metadata and stream do not change the key, the model does", async () => {
    const content = fresh("plain");
    const before = calls();
    const plain = await openai.chat.completions.create(chat(content)).withResponse();
    expect(plain.response.headers.get("x-service-cache")).toBeNull();
    await openai.chat.completions.create(chat(content), CACHE);
    expect(calls()).toBe(before + 2);
    const same = await openai.chat.completions.create(chat(content, { user: "someone", metadata: { run: "x" } }), CACHE).withResponse();
    expect(same.response.headers.get("x-service-cache")).toBe("HIT");
    // Key order of the body does not matter.
    const reordered = await gw.request("/chat/completions", { method: "POST", json: { messages: [{ content, role: "user" }], model: MODEL }, headers: CACHE.headers });
    expect(reordered.headers.get("x-service-cache")).toBe("HIT");
    const other = await openai.chat.completions.create(chat(content, { max_tokens: 77 }), CACHE).withResponse();
    expect(other.response.headers.get("x-service-cache")).toBe("MISS");
    const off = await openai.chat.completions.create(chat(content), { headers: { "X-Service-Cache": "false" } }).withResponse();
    expect(off.response.headers.get("x-service-cache")).toBeNull();
    expect(calls()).toBe(before + 4);
  });

  test("a streamed request is answered from a non-streamed entry with the event kinds of a live stream, and the other way round", async () => {
    const content = fresh("stream");
    const live: string[] = [];
    const liveText: string[] = [];
    const streamed = await openai.chat.completions.create({ ...chat(fresh("live")), stream: true, stream_options: { include_usage: true } });
    for await (const chunk of streamed as unknown as AsyncIterable<Json>) live.push(chunkKind(chunk));
    await openai.chat.completions.create(chat(content), CACHE);
    const before = calls();
    const replay = await openai.chat.completions.create({ ...chat(content), stream: true, stream_options: { include_usage: true } }, CACHE).withResponse();
    expect(replay.response.headers.get("x-service-cache")).toBe("HIT");
    const replayed: string[] = [];
    for await (const chunk of replay.data as unknown as AsyncIterable<Json>) {
      replayed.push(chunkKind(chunk));
      liveText.push(chunk.choices[0]?.delta?.content ?? "");
    }
    expect(kinds(replayed)).toEqual(kinds(live));
    expect(liveText.join("")).toBe("hello from acme");
    // A streamed miss is kept once it ended, and answers a request that does not stream.
    const content2 = fresh("stream-first");
    const s = await openai.chat.completions.create({ ...chat(content2), stream: true }, CACHE);
    for await (const _ of s) void _;
    const whole = await openai.chat.completions.create(chat(content2), CACHE).withResponse();
    expect(whole.response.headers.get("x-service-cache")).toBe("HIT");
    expect(whole.data.choices[0]!.message.content).toBe("hello from acme");
    expect(calls()).toBe(before + 1);
  });

  test("failed and cut answers are never kept", async () => {
    const failed = chat(fresh("fail"));
    up.script({ kind: "status", status: 400, message: "bad" });
    const refused = await openai.chat.completions.create(failed, CACHE).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((await openai.chat.completions.create(failed, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("MISS");
    const cut = chat(fresh("cut"));
    up.script({ kind: "cut", afterChunks: 2 });
    const before = calls();
    const res = await gw.request("/chat/completions", { method: "POST", json: { ...cut, stream: true }, headers: CACHE.headers });
    const text = await res.text();
    expect(text).toContain("error");
    const again = await openai.chat.completions.create(cut, CACHE).withResponse();
    expect(again.response.headers.get("x-service-cache")).toBe("MISS");
    expect(calls()).toBe(before + 2);
  });
});

/** What a chat chunk carries: role, content, finish or usage. */
function chunkKind(chunk: Json): string {
  const choice = chunk.choices?.[0];
  if (!choice) return chunk.usage ? "usage" : "empty";
  if (choice.finish_reason) return "finish";
  if (choice.delta?.role) return "role";
  return choice.delta?.content !== undefined ? "content" : "other";
}

describe("Responses and Messages", () => {
  test("Responses: a streamed hit has the event types of a live stream", async () => {
    const live = await openai.responses.create({ model: MODEL, input: fresh("live"), stream: true });
    const liveTypes: string[] = [];
    for await (const event of live) liveTypes.push(event.type);
    const input = fresh("responses");
    const first = await openai.responses.create({ model: MODEL, input }, CACHE);
    const hit = await openai.responses.create({ model: MODEL, input, stream: true }, CACHE).withResponse();
    expect(hit.response.headers.get("x-service-cache")).toBe("HIT");
    const types: string[] = [];
    let text = "";
    for await (const event of hit.data) {
      types.push(event.type);
      if (event.type === "response.completed") text = event.response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((c) => (c.type === "output_text" ? c.text : "")).join("");
    }
    expect(kinds(types)).toEqual(kinds(liveTypes));
    expect(text).toBe(first.output_text);
  });

  test("Messages (the anthropic client): a streamed hit has the event types of a live stream", async () => {
    const body = (content: string) => ({ model: MODEL, max_tokens: 100, messages: [{ role: "user" as const, content }] });
    const liveTypes: string[] = [];
    for await (const event of await anthropic.messages.create({ ...body(fresh("live")), stream: true })) liveTypes.push(event.type);
    const content = fresh("messages");
    const first = await anthropic.messages.create(body(content), CACHE);
    const { data, response } = await anthropic.messages.create({ ...body(content), stream: true }, CACHE).withResponse();
    expect(response.headers.get("x-service-cache")).toBe("HIT");
    const types: string[] = [];
    let text = "";
    for await (const event of data) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    }
    expect(kinds(types)).toEqual(kinds(liveTypes));
    expect(text).toBe((first.content[0] as { text: string }).text);
  });
});

describe("the rules", () => {
  test("temperature above cache.max_temperature (1) is not kept unless forced; exactly 1 is", async () => {
    const hot = chat(fresh("hot"), { temperature: 1.01 });
    await openai.chat.completions.create(hot, CACHE);
    const again = await openai.chat.completions.create(hot, CACHE).withResponse();
    expect(again.response.headers.get("x-service-cache")).toBe("MISS");
    expect((again.data as Json).service_metadata.cache).toEqual({ status: "miss", skipped: "temperature" });
    const forced = { headers: { "X-Service-Cache": "force" } };
    await openai.chat.completions.create(hot, forced);
    expect((await openai.chat.completions.create(hot, forced).withResponse()).response.headers.get("x-service-cache")).toBe("HIT");
    const edge = chat(fresh("edge"), { temperature: 1 });
    await openai.chat.completions.create(edge, CACHE);
    expect((await openai.chat.completions.create(edge, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("HIT");
  });

  test("server tools and n > 1 are not kept unless forced", async () => {
    const tools = chat(fresh("tools"), { tools: [{ type: "service:datetime" }] });
    await gw.request("/chat/completions", { method: "POST", json: tools, headers: CACHE.headers });
    const again = await gw.request("/chat/completions", { method: "POST", json: tools, headers: CACHE.headers });
    expect(again.headers.get("x-service-cache")).toBe("MISS");
    expect(((await again.json()) as Json).service_metadata.cache.skipped).toBe("server_tools");
    const several = chat(fresh("n"), { n: 2 });
    await gw.request("/chat/completions", { method: "POST", json: several, headers: CACHE.headers });
    const twice = await gw.request("/chat/completions", { method: "POST", json: several, headers: CACHE.headers });
    expect(((await twice.json()) as Json).service_metadata.cache).toEqual({ status: "miss", skipped: "n" });
  });

  test("headers: a bad X-Service-Cache or a TTL outside 1..86400 is a 400 naming it; a TTL alone is a warning", async () => {
    const send = (headers: Record<string, string>) => gw.request("/chat/completions", { method: "POST", json: chat(fresh("hdr")), headers });
    const bad = await send({ "X-Service-Cache": "yes" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.message).toContain("X-Service-Cache");
    for (const ttl of ["0", "86401", "1.5", "-3", "abc"]) {
      const res = await send({ "X-Service-Cache": "true", "X-Service-Cache-TTL": ttl });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toContain("X-Service-Cache-TTL");
    }
    for (const ttl of ["1", "86400"]) expect((await send({ "X-Service-Cache": "true", "X-Service-Cache-TTL": ttl })).status).toBe(200);
    const alone = await send({ "X-Service-Cache-TTL": "60", "X-Service-Metadata": "enabled" });
    expect(((await alone.json()) as Json).service_metadata.warnings.map((w: Json) => w.code)).toContain("cache_ttl_ignored");
  });

  test("an entry expires with its TTL; X-Service-Cache-Clear replaces it", async () => {
    const body = chat(fresh("ttl"));
    const short = { headers: { "X-Service-Cache": "true", "X-Service-Cache-TTL": "1" } };
    await openai.chat.completions.create(body, short);
    const hit = await openai.chat.completions.create(body, short).withResponse();
    expect(hit.response.headers.get("x-service-cache")).toBe("HIT");
    expect(hit.response.headers.get("x-service-cache-ttl")).toBe("1");
    await Bun.sleep(1_100);
    expect((await openai.chat.completions.create(body, short).withResponse()).response.headers.get("x-service-cache")).toBe("MISS");
    const before = calls();
    const cleared = await openai.chat.completions.create(body, { headers: { ...CACHE.headers, "X-Service-Cache-Clear": "true" } }).withResponse();
    expect(cleared.response.headers.get("x-service-cache")).toBe("MISS");
    expect(calls()).toBe(before + 1);
  });
});

describe("settings, isolation, guardrails, deletion, metrics", () => {
  test("a key's cache setting turns it on for its requests; PATCH null turns it back off", async () => {
    const created = (await (await gw.request("/keys", { method: "POST", key: ADMIN_KEY, json: { name: "cached", cache: { enabled: true, ttl_seconds: 120 } } })).json()) as Json;
    expect(created.data.cache).toEqual({ enabled: true, ttl_seconds: 120 });
    const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: created.key, maxRetries: 0 });
    const body = chat(fresh("key"));
    await client.chat.completions.create(body);
    const hit = await client.chat.completions.create(body).withResponse();
    expect(hit.response.headers.get("x-service-cache")).toBe("HIT");
    expect(hit.response.headers.get("x-service-cache-ttl")).toBe("120");
    // The request's own word wins over its key's.
    expect((await client.chat.completions.create(body, { headers: { "X-Service-Cache": "false" } }).withResponse()).response.headers.get("x-service-cache")).toBeNull();
    const tooLong = await gw.request(`/keys/${created.data.hash}`, { method: "PATCH", key: ADMIN_KEY, json: { cache: { enabled: true, ttl_seconds: 86_401 } } });
    expect(tooLong.status).toBe(400);
    await gw.request(`/keys/${created.data.hash}`, { method: "PATCH", key: ADMIN_KEY, json: { cache: null } });
    expect((await client.chat.completions.create(body).withResponse()).response.headers.get("x-service-cache")).toBeNull();
  });

  test("a preset's cache setting turns it on for requests naming it", async () => {
    const slug = `cached-${n}`;
    const made = await gw.request(`/presets/${slug}/chat/completions`, { method: "POST", key: ADMIN_KEY, json: { ...chat("x"), cache: { enabled: true, ttl_seconds: 30 } } });
    expect(made.status).toBe(200);
    const body = { ...chat(fresh("preset")), preset: slug };
    await gw.request("/chat/completions", { method: "POST", json: body });
    const hit = await gw.request("/chat/completions", { method: "POST", json: body });
    expect(hit.headers.get("x-service-cache")).toBe("HIT");
    expect(hit.headers.get("x-service-cache-ttl")).toBe("30");
    // A Responses prompt template is a preset too.
    const templated = { model: MODEL, prompt: { id: slug }, input: fresh("template") };
    await gw.request("/responses", { method: "POST", json: templated });
    expect((await gw.request("/responses", { method: "POST", json: templated })).headers.get("x-service-cache")).toBe("HIT");
  });

  test("another workspace never sees an entry", async () => {
    const body = chat(fresh("ws"));
    await openai.chat.completions.create(body, CACHE);
    const other = await gw.gateway.deps.store.workspaces.create("other");
    const secret = `sk-other-${crypto.randomUUID()}`;
    await gw.gateway.deps.store.keys.create({ hash: hashSecret(secret), workspaceId: other.id, name: "other", label: "other", isManagement: false, limit: null, limitReset: null, expiresAt: null });
    const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: secret, maxRetries: 0 });
    expect((await client.chat.completions.create(body, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("MISS");
    expect((await openai.chat.completions.create(body, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("HIT");
  });

  test("a hit still passes the calling key's output guardrails", async () => {
    const body = chat(fresh("guarded"));
    await openai.chat.completions.create(body, CACHE);
    const guarded = (await (await gw.request("/keys", { method: "POST", key: ADMIN_KEY, json: { name: "guarded" } })).json()) as Json;
    const made = (await (await gw.request("/guardrails", { method: "POST", key: ADMIN_KEY, json: { name: "no-acme", apply_to: "output", content_filters: [{ pattern: "acme", action: "block" }] } })).json()) as Json;
    await gw.request(`/guardrails/${made.data.id}/assignments/keys`, { method: "POST", key: ADMIN_KEY, json: { key_hashes: [guarded.data.hash] } });
    const before = calls();
    const blocked = await gw.request("/chat/completions", { method: "POST", key: guarded.key, json: body, headers: CACHE.headers });
    expect(blocked.status).toBe(403);
    expect(blocked.headers.get("x-service-cache")).toBe("HIT");
    const streamed = await gw.request("/chat/completions", { method: "POST", key: guarded.key, json: { ...body, stream: true }, headers: CACHE.headers });
    expect(streamed.status).toBe(403);
    expect(calls()).toBe(before);
  });

  test("DELETE /cache drops a workspace's entries of one model; another workspace named by a non-operator is 404", async () => {
    const body = chat(fresh("drop"));
    await openai.chat.completions.create(body, CACHE);
    // An inference key may not; a management key of this workspace may not name another one (404, as any object of
    // another workspace); the operator may.
    expect((await gw.request(`/cache?model=${MODEL}`, { method: "DELETE" })).status).toBe(403);
    const other = await gw.gateway.deps.store.workspaces.create("elsewhere");
    const manager = `sk-manager-${crypto.randomUUID()}`;
    const ownWorkspace = (await gw.gateway.deps.store.keys.findByHash(gw.inferenceKeyHash))!.workspaceId;
    await gw.gateway.deps.store.keys.create({ hash: hashSecret(manager), workspaceId: ownWorkspace, name: "m", label: "m", isManagement: true, limit: null, limitReset: null, expiresAt: null });
    expect((await gw.request(`/cache?workspace_id=${other.id}`, { method: "DELETE", key: manager })).status).toBe(404);
    expect((await gw.request(`/cache?workspace_id=nope`, { method: "DELETE", key: ADMIN_KEY })).status).toBe(404);
    expect((await gw.request(`/cache?workspace_id=${other.id}`, { method: "DELETE", key: ADMIN_KEY })).status).toBe(200);
    // Another model's entries stay.
    const kept = await gw.request(`/cache?model=someone%2Felse`, { method: "DELETE", key: manager });
    expect(((await kept.json()) as Json).data.deleted).toBe(0);
    expect((await openai.chat.completions.create(body, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("HIT");
    const dropped = await gw.request(`/cache?model=${encodeURIComponent(MODEL)}`, { method: "DELETE", key: manager });
    expect(dropped.status).toBe(200);
    expect(((await dropped.json()) as Json).data.deleted).toBeGreaterThanOrEqual(1);
    expect((await openai.chat.completions.create(body, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("MISS");
  });

  test("metrics count hits, misses and the bytes kept", async () => {
    const body = chat(fresh("metrics"));
    await openai.chat.completions.create(body, CACHE);
    await openai.chat.completions.create(body, CACHE);
    const text = await (await fetch(`${gw.origin}/metrics`)).text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1] ?? Number.NaN);
    expect(value("gateway_response_cache_hits_total")).toBeGreaterThanOrEqual(1);
    expect(value("gateway_response_cache_misses_total")).toBeGreaterThanOrEqual(1);
    expect(value("gateway_response_cache_written_bytes_total")).toBeGreaterThan(0);
    expect(value("gateway_response_cache_bytes")).toBeGreaterThan(0);
  });
});

describe("the OpenRouter SDK", () => {
  test("chat.send with the cache header: the hit parses, costs nothing and says so", async () => {
    const rig = sdkClient(gw, gw.inferenceKey);
    const request = { model: MODEL, messages: [{ role: "user" as const, content: fresh("sdk") }] };
    const first = await chatOnce(rig.sdk, request, CACHE);
    const hit = await chatOnce(rig.sdk, request, CACHE);
    expect(hit.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(hit.usage!.cost).toBe(0);
    expect((rig.bodies.at(-1) as Json).service_metadata.cache).toEqual({ status: "hit" });
  });
});

describe("the operator's cache settings", () => {
  let priced: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    priced = await startTestGateway({
      file: {
        simulator: true,
        cache: { read_price_factor: 0.5, max_entry_bytes: 2_048 },
        providers: [{ id: "acme", adapter: "openai", base_url: up.url, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING }] }],
      },
    });
    client = new OpenAI({ baseURL: priced.baseUrl, apiKey: priced.inferenceKey, maxRetries: 0 });
  });
  afterAll(async () => priced.close());

  test("cache.read_price_factor: a hit is billed that share of what the answer cost, on the key and its record", async () => {
    const body = chat(fresh("priced"));
    const first = await client.chat.completions.create(body, CACHE);
    const cost = (first.usage as Json).cost as number;
    expect(cost).toBeGreaterThan(0);
    const hit = await client.chat.completions.create(body, CACHE).withResponse();
    expect(hit.response.headers.get("x-service-cache")).toBe("HIT");
    expect((hit.data.usage as Json).cost).toBeCloseTo(cost * 0.5, 12);
    await priced.gateway.deps.ledger.flush();
    const record = ((await (await priced.request(`/generation?id=${hit.data.id}`, { key: ADMIN_KEY })).json()) as Json).data;
    expect(record.total_cost).toBeCloseTo(cost * 0.5, 12);
  });

  test("cache.max_entry_bytes: a larger answer is not kept, streamed or not", async () => {
    up.fallback = { kind: "ok", text: "long ".repeat(500) };
    for (const stream of [false, true]) {
      const body = chat(fresh("long"));
      const first = await priced.request("/chat/completions", { method: "POST", json: { ...body, stream }, headers: CACHE.headers });
      await first.text();
      const again = await priced.request("/chat/completions", { method: "POST", json: body, headers: CACHE.headers });
      expect(again.headers.get("x-service-cache")).toBe("MISS");
    }
    up.fallback = { kind: "ok", text: "short" };
    const body = chat(fresh("short"));
    await client.chat.completions.create(body, CACHE);
    expect((await client.chat.completions.create(body, CACHE).withResponse()).response.headers.get("x-service-cache")).toBe("HIT");
  });
});

describe("a kv that cannot be reached", () => {
  test("turns the cache into misses, never into failed requests", async () => {
    const kv = createMemoryKv();
    const down = () => Promise.reject(new Error("connect ECONNREFUSED"));
    const broken = await startTestGateway({
      file: { simulator: true, providers: [{ id: "acme", adapter: "openai", base_url: up.url, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING }] }] },
      overrides: { kv: { ...kv, poolGet: down, poolPut: down } },
    });
    try {
      const body = chat(fresh("down"));
      for (const stream of [false, true, false]) {
        const res = await broken.request("/chat/completions", { method: "POST", json: { ...body, stream }, headers: CACHE.headers });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-service-cache")).toBe("MISS");
        expect(await res.text()).toContain(stream ? '"content":" acme"' : "hello from acme");
      }
    } finally {
      await broken.close();
    }
  });
});
