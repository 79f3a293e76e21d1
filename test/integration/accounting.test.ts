/**
 * Accounting through HTTP: `usage.cost` and `cost_details` in every format's result and final stream event, one
 * generation record per request (GET /generation), X-Generation-Id on every reply, the no-charge rule for errors
 * without output, and billing of what the upstream produced even when a later stage fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

type Json = Record<string, any>;

let gw: TestGateway;
let up: FaultUpstream;
const PRICE = { prompt: 1e-6, completion: 2e-6 };

beforeAll(async () => {
  up = startFaultUpstream("up");
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [{ id: "up", adapter: "openai", base_url: up.url, models: [{ id: "m/up", upstream_model: "up", pricing: PRICE }] }],
      extensions: ["./test/fixtures/extensions/throws.ts"],
      routing: { max_retries: 0, breaker: { failure_threshold: 1_000 } },
    },
  });
});

afterAll(async () => {
  await gw.close();
  up.stop();
});

const post = (path: string, json: Json) => gw.request(path, { method: "POST", json });
const generation = async (id: string) => {
  const res = await gw.request(`/generation?id=${id}`);
  return { status: res.status, data: ((await res.json()) as Json).data as Json };
};
async function frames(res: Response): Promise<Json[]> {
  return (await res.text())
    .split("\n\n")
    .flatMap((f) => f.split("\n").filter((l) => l.startsWith("data: ") && l !== "data: [DONE]"))
    .map((l) => JSON.parse(l.slice(6)) as Json);
}
const expectedCost = (input: number, output: number) => input * PRICE.prompt + output * PRICE.completion;

describe("cost in every format", () => {
  test("chat: cost and cost_details in the result, equal to the generation record", async () => {
    const res = await post("/chat/completions", { model: "m/up", messages: [{ role: "user", content: "one two three" }] });
    const body = (await res.json()) as Json;
    const u = body.usage;
    expect(u.cost).toBeCloseTo(expectedCost(u.prompt_tokens, u.completion_tokens), 12);
    expect(u.cost_details).toEqual({ upstream_inference_cost: null, upstream_inference_prompt_cost: u.prompt_tokens * PRICE.prompt, upstream_inference_completions_cost: u.completion_tokens * PRICE.completion });
    expect(res.headers.get("x-generation-id")).toBe(body.id);
    const g = await generation(body.id);
    expect(g.status).toBe(200);
    expect(g.data).toMatchObject({ id: body.id, model: "m/up", provider_name: "up", status: 200, tokens_prompt: u.prompt_tokens, tokens_completion: u.completion_tokens });
    expect(g.data.total_cost).toBeCloseTo(u.cost, 12);
  });

  test("chat stream: the final usage chunk carries cost and cost_details", async () => {
    const res = await post("/chat/completions", { model: "m/up", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] });
    const last = (await frames(res)).at(-1)!;
    expect(last.usage.cost).toBeCloseTo(expectedCost(last.usage.prompt_tokens, last.usage.completion_tokens), 12);
    expect(Object.keys(last.usage.cost_details).sort()).toEqual(["upstream_inference_completions_cost", "upstream_inference_cost", "upstream_inference_prompt_cost"]);
    expect((await generation(res.headers.get("x-generation-id")!)).data.total_cost).toBeCloseTo(last.usage.cost, 12);
  });

  test("Responses: result and response.completed carry cost and cost_details", async () => {
    const body = (await (await post("/responses", { model: "m/up", input: "hi" })).json()) as Json;
    expect(body.usage.cost).toBeCloseTo(expectedCost(body.usage.input_tokens, body.usage.output_tokens), 12);
    expect(body.usage.cost_details.upstream_inference_input_cost + body.usage.cost_details.upstream_inference_output_cost).toBeCloseTo(body.usage.cost, 12);
    const streamed = await frames(await post("/responses", { model: "m/up", input: "hi", stream: true }));
    const completed = streamed.find((e) => e.type === "response.completed")!;
    expect(completed.response.usage.cost).toBeGreaterThan(0);
    expect(completed.response.usage.cost_details).toBeDefined();
  });

  test("Messages: the result carries the cost", async () => {
    const body = (await (await post("/messages", { model: "m/up", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).json()) as Json;
    expect(body.usage.cost).toBeCloseTo(expectedCost(body.usage.input_tokens, body.usage.output_tokens), 12);
  });
});

describe("generation records and the no-charge rule", () => {
  test("an error with no output costs nothing, and is still recorded", async () => {
    up.script({ kind: "cut", afterChunks: 0 });
    const res = await post("/chat/completions", { model: "m/up", stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(502);
    const g = await generation(res.headers.get("x-generation-id")!);
    expect(g.data).toMatchObject({ status: 502, error_type: "provider_unavailable", total_cost: 0, tokens_completion: 0 });
  });

  test("a later stage failing after the upstream answered: the client gets a 500 without internals, the output is billed", async () => {
    const res = await post("/chat/completions", { model: "m/up", plugins: [{ id: "explode" }], messages: [{ role: "user", content: "bill me" }] });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    const g = await generation(res.headers.get("x-generation-id")!);
    expect(g.data.status).toBe(500);
    expect(g.data.tokens_completion).toBeGreaterThan(0);
    expect(g.data.total_cost).toBeCloseTo(expectedCost(g.data.tokens_prompt, g.data.tokens_completion), 12);
    await gw.gateway.deps.ledger.flush();
    const me = ((await (await gw.request("/key")).json()) as Json).data;
    expect(me.usage).toBeGreaterThanOrEqual(g.data.total_cost);
  });

  test("every reply of the pipeline carries X-Generation-Id: success, routing 404, 402, 429", async () => {
    const routed = await post("/chat/completions", { model: "m/up", provider: { only: ["nobody"] }, messages: [{ role: "user", content: "x" }] });
    expect(routed.status).toBe(404);
    expect(routed.headers.get("x-generation-id")).toMatch(/^gen-/);
    const make = async (body: Json) => ((await (await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "k", ...body } })).json()) as Json).key as string;
    const broke = await make({ limit: 0 });
    const refused = await gw.request("/chat/completions", { method: "POST", key: broke, json: { model: "m/up", messages: [{ role: "user", content: "x" }] } });
    expect(refused.status).toBe(402);
    expect(refused.headers.get("x-generation-id")).toMatch(/^gen-/);
    const slow = await make({ rate_limit: { requests: 1, interval_seconds: 3600 } });
    await gw.request("/chat/completions", { method: "POST", key: slow, json: { model: "m/up", messages: [{ role: "user", content: "x" }] } });
    const limited = await gw.request("/chat/completions", { method: "POST", key: slow, json: { model: "m/up", messages: [{ role: "user", content: "x" }] } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-generation-id")).toMatch(/^gen-/);
  });
});
