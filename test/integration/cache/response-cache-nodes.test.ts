/**
 * The response cache shared by two gateways on one Postgres and one Redis (README "Response cache"): an answer kept
 * by one is a hit on the other, in the other's format and streamed, and a `DELETE /cache` on one drops it for both.
 * Runs when DATABASE_URL (postgres) and REDIS_URL are set, as in CI; prints why it skips otherwise. The model id is
 * unique per run, so entries of other runs sharing the Redis never interfere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { ADMIN_KEY, type TestGateway } from "../../support/gateway.ts";
import { chatOnce, sdkClient } from "../../support/openrouter-sdk.ts";
import { sharedStoresFor, twoNodes } from "../../support/two-nodes.ts";

type Json = Record<string, any>;

const enabled = sharedStoresFor("response-cache-nodes");

const run = crypto.randomUUID().slice(0, 8);
const MODEL = `acme/cached-${run}`;
const CACHE = { headers: { "X-Service-Cache": "true", "X-Service-Metadata": "enabled" } };
let up: FaultUpstream;
let a: TestGateway;
let b: TestGateway;

/** Bytes `gw` has put in the cache so far (its metrics count a write once Redis confirmed it). */
async function writtenBytes(gw: TestGateway): Promise<number> {
  const text = await (await fetch(`${gw.origin}/metrics`)).text();
  return Number(text.match(/^gateway_response_cache_written_bytes_total (\S+)$/m)?.[1] ?? 0);
}

/** The entry is written after the answer went out: waits (bounded) until `gw` has written more than `before`. */
async function written(gw: TestGateway, before: number): Promise<void> {
  for (let i = 0; i < 100 && (await writtenBytes(gw)) <= before; i++) await Bun.sleep(20);
}

describe.skipIf(!enabled)("two gateways on one Postgres and one Redis share the response cache", () => {
  beforeAll(() => void (up = startFaultUpstream(`acme-${run}`)));
  afterAll(() => up?.stop());
  twoNodes(
    (x, y) => ([a, b] = [x, y]),
    () => ({ file: { simulator: true, providers: [{ id: `acme-${run}`, adapter: "openai", base_url: up.url, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: { prompt: 1e-6, completion: 2e-6 } }] }] } }),
  );

  test("an answer kept by one gateway is a hit on the other (openai client, then the OpenRouter SDK streamed)", async () => {
    const onA = new OpenAI({ baseURL: a.baseUrl, apiKey: a.inferenceKey, maxRetries: 0 });
    const onB = new OpenAI({ baseURL: b.baseUrl, apiKey: a.inferenceKey, maxRetries: 0 });
    const body = { model: MODEL, messages: [{ role: "user" as const, content: `two nodes ${run}` }] };
    const before = await writtenBytes(a);
    const first = await onA.chat.completions.create(body, CACHE).withResponse();
    expect(first.response.headers.get("x-service-cache")).toBe("MISS");
    await written(a, before);
    const calls = up.requests.length;
    const hit = await onB.chat.completions.create(body, CACHE).withResponse();
    expect(hit.response.headers.get("x-service-cache")).toBe("HIT");
    expect(hit.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
    expect(hit.response.headers.get("x-service-cache-source-id")).toBe(first.data.id);
    // The OpenRouter SDK on B, streamed: the same entry, replayed as a stream.
    const rig = sdkClient(b, a.inferenceKey);
    const streamed = await rig.sdk.chat.send({ chatRequest: { ...body, stream: true } }, CACHE);
    let text = "";
    for await (const chunk of streamed as AsyncIterable<{ choices: Array<{ delta: { content?: string | null } }> }>) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(first.data.choices[0]!.message.content!);
    const whole = await chatOnce(rig.sdk, body, CACHE);
    expect(whole.usage!.cost).toBe(0);
    expect(up.requests.length).toBe(calls);
  });

  test("DELETE /cache on one gateway drops the entry for both", async () => {
    const body = { model: MODEL, messages: [{ role: "user", content: `drop ${run}` }] };
    const ask = async (gw: TestGateway) => (await gw.request("/chat/completions", { method: "POST", json: body, headers: CACHE.headers })).headers.get("x-service-cache");
    const before = await writtenBytes(b);
    expect(await ask(b)).toBe("MISS");
    await written(b, before);
    expect(await ask(a)).toBe("HIT");
    const dropped = await b.request(`/cache?model=${encodeURIComponent(MODEL)}`, { method: "DELETE", key: ADMIN_KEY });
    expect(((await dropped.json()) as Json).data.deleted).toBeGreaterThanOrEqual(1);
    expect(await ask(a)).toBe("MISS");
  });
});
