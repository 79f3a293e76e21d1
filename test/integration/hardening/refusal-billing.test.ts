/**
 * A refusal that moves on to the fallback model was generated, and the upstream bills
 * it, so it is billed too — streamed or not — and the key's credit hold grows by its cost before the fallback is
 * called; a key that cannot afford that gets the refusal itself (never more than its limit).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

const PRICE = 0.001;
/** What the refusing upstream reports: 5 prompt and 3 completion tokens, 0.008 USD. */
const REFUSAL_USAGE = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
const REFUSAL_COST = 8 * PRICE;
/** The fault upstream's answer to "hi": 5 prompt tokens, "hello from answer" = 3 completion tokens. */
const ANSWER_COST = 8 * PRICE;

const refusalJson = JSON.stringify({
  id: "r",
  object: "chat.completion",
  created: 1,
  model: "x",
  choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "I cannot help with that" }, finish_reason: "content_filter" }],
  usage: REFUSAL_USAGE,
});
const chunk = (fields: Json) => `data: ${JSON.stringify({ id: "r", object: "chat.completion.chunk", created: 1, model: "x", ...fields })}\n\n`;
const refusalStream =
  chunk({ choices: [{ index: 0, delta: { role: "assistant", refusal: "I cannot" }, finish_reason: null }] }) +
  chunk({ choices: [{ index: 0, delta: {}, finish_reason: "content_filter" }] }) +
  chunk({ choices: [], usage: REFUSAL_USAGE }) +
  "data: [DONE]\n\n";

let refuser: FaultUpstream;
let answerer: FaultUpstream;
let gw: TestGateway;

beforeAll(async () => {
  refuser = startFaultUpstream("refuser");
  answerer = startFaultUpstream("answer");
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "refuser", adapter: "openai", base_url: refuser.url, models: [{ id: "m/refuses", pricing: { prompt: PRICE, completion: PRICE } }] },
        { id: "answerer", adapter: "openai", base_url: answerer.url, models: [{ id: "m/answers", pricing: { prompt: PRICE, completion: PRICE } }] },
      ],
    },
  });
});

afterAll(async () => {
  await gw.close();
  refuser.stop();
  answerer.stop();
});

beforeEach(() => {
  refuser.requests.length = 0;
  answerer.requests.length = 0;
  refuser.fallback = { kind: "body", body: refusalJson };
});

async function keyWith(limit: number | null): Promise<string> {
  const res = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: `limit ${limit}`, limit } });
  return ((await res.json()) as { key: string }).key;
}

const ask = (key: string, extra: Json = {}) =>
  gw.request("/chat/completions", { key, method: "POST", json: { model: "m/refuses", models: ["m/answers"], max_tokens: 10, messages: [{ role: "user", content: "hi" }], ...extra } });

async function generation(id: string): Promise<Json> {
  for (let i = 0; i < 50; i++) {
    const res = await gw.request(`/generation?id=${id}`);
    if (res.status === 200) return ((await res.json()) as { data: Json }).data;
    await Bun.sleep(20);
  }
  throw new Error(`no generation ${id}`);
}

describe("a refusal that falls back is billed", () => {
  test("non-streamed: the fallback answers, and the bill is the refusal plus the answer", async () => {
    const res = await ask(await keyWith(null));
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.choices[0].message.content).toBe("hello from answer");
    expect(body.usage.cost).toBeCloseTo(REFUSAL_COST + ANSWER_COST, 12);
    const record = await generation(res.headers.get("x-generation-id")!);
    expect(record.total_cost).toBeCloseTo(REFUSAL_COST + ANSWER_COST, 12);
    expect([record.tokens_prompt, record.tokens_completion]).toEqual([10, 6]);
  });

  test("streamed: the refusal's stream is read for its usage, then the fallback streams; both billed", async () => {
    refuser.fallback = { kind: "body", body: refusalStream, headers: { "content-type": "text/event-stream" } };
    const res = await ask(await keyWith(null), { stream: true, stream_options: { include_usage: true } });
    const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: {")).map((f) => JSON.parse(f.slice(6)) as Json);
    expect(frames.map((f) => f.choices?.[0]?.delta?.content ?? "").join("")).toBe("hello from answer");
    expect(frames.at(-1)!.usage.cost).toBeCloseTo(REFUSAL_COST + ANSWER_COST, 12);
    const record = await generation(res.headers.get("x-generation-id")!);
    expect(record.total_cost).toBeCloseTo(REFUSAL_COST + ANSWER_COST, 12);
  });

  test("a key whose limit covers the request but not the refusal on top gets the refusal: the fallback is never called", async () => {
    // The reservation is 18 prompt-bound tokens + 10 output tokens = 0.028; with the refusal's 0.008 it is 0.036.
    const res = await ask(await keyWith(0.032));
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.choices[0].finish_reason).toBe("content_filter");
    expect(body.usage.cost).toBeCloseTo(REFUSAL_COST, 12);
    expect(answerer.requests).toHaveLength(0);
  });
});
