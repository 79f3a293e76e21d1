/**
 * A Bedrock model used like any other: through a preset (`@preset/slug` supplies the model and system prompt) and in
 * a batch (each item a Converse call to the fake, results and the batch discount's usage back), both priced from the
 * config.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type FakeBedrock } from "../../support/fake-bedrock/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatItem, submit, waitForBatch } from "../../unit/batches/http-support.ts";

const usage = { inputTokens: 100, outputTokens: 20, totalTokens: 120 };
let fake: FakeBedrock;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeBedrock({
    respond: (request) => ({
      kind: "converse",
      body: { output: { message: { role: "assistant", content: [{ text: `Answer to ${JSON.stringify(request.body.messages).length} bytes.` }] } }, stopReason: "end_turn", usage, metrics: { latencyMs: 5 } },
    }),
  });
  gw = await startTestGateway({
    file: {
      providers: [
        {
          id: "aws",
          adapter: "bedrock",
          region: REGION,
          base_url: fake.origin,
          credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey },
          models: [{ id: "aws/claude", upstream_model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", pricing: { prompt: 0.000003, completion: 0.000015 } }],
        },
      ],
      batches: { poll_interval_ms: 20, lease_ms: 5_000, discount: 0.5, concurrency: 4, per_batch_concurrency: 2, get_rate_limit_per_minute: 100_000 },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});

test("a preset naming a Bedrock model: its system prompt reaches Converse's system slot", async () => {
  const made = await gw.request("/presets/geo/chat/completions", { method: "POST", key: ADMIN_KEY, json: { model: "aws/claude", messages: [{ role: "system", content: "You are a geography tutor." }] } });
  expect(made.status).toBe(200);
  const res = await gw.request("/chat/completions", { method: "POST", json: { model: "@preset/geo", messages: [{ role: "user", content: "preset question" }] } });
  expect(res.status).toBe(200);
  const sent = fake.requests.find((r) => r.raw.includes("preset question"));
  expect(sent?.modelId).toBe("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
  expect(sent?.body.system).toEqual([{ text: "You are a geography tutor." }]);
  expect(sent?.auth).toEqual({ kind: "sigv4", accessKeyId: STATIC_KEY.accessKeyId });
});

test("a batch of Bedrock calls: every item answered, at the discounted price", async () => {
  const batch = await submit(gw, { endpoint: "/chat/completions", model: "aws/claude", requests: [chatItem("a", "batch-a"), chatItem("b", "batch-b")] });
  const done = (await waitForBatch(gw, batch.id, (b) => b.status === "completed")).batch;
  expect(done.request_counts).toEqual({ completed: 2, failed: 0, total: 2 });
  for (const entry of done.results!) {
    expect(entry.response!.status_code).toBe(200);
    const body = entry.response!.body as { usage: { cost: number; prompt_tokens: number } };
    expect(body.usage.prompt_tokens).toBe(100);
    expect(body.usage.cost).toBeCloseTo((100 * 0.000003 + 20 * 0.000015) * 0.5, 12);
  }
  for (const marker of ["batch-a", "batch-b"]) expect(fake.requests.filter((r) => r.raw.includes(marker))).toHaveLength(1);
});
