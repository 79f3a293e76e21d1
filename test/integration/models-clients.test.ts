/**
 * The models API as the official clients read it: `models.list` and `models.retrieve` of
 * `openai` and `@anthropic-ai/sdk` — ids with a slash, the standard fields each family reads, Anthropic's cursor
 * paging, and a 404 each client recognises.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type ApiError = InstanceType<typeof Anthropic.APIError>;

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let ids: string[];

beforeAll(async () => {
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [{ id: "p1", adapter: "openai", base_url: "http://127.0.0.1:1/v1", models: [{ id: "acme/model-a", upstream_model: "m1", name: "Model A" }] }],
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
  const listed = (await (await gw.request("/models")).json()) as { data: Array<{ id: string }> };
  ids = listed.data.map((m) => m.id);
});
afterAll(async () => gw.close());

test("openai: models.list entries and models.retrieve (an id with a slash) carry id, object, created, owned_by", async () => {
  const listed: OpenAI.Model[] = [];
  for await (const model of openai.models.list()) listed.push(model);
  expect(listed.map((m) => m.id)).toEqual(ids);
  for (const model of listed) expect(model).toMatchObject({ object: "model", created: expect.any(Number), owned_by: expect.any(String) });

  const one = await openai.models.retrieve("acme/model-a");
  expect(one).toMatchObject({ id: "acme/model-a", object: "model", created: 0, owned_by: "acme" });
});

test("anthropic: models.retrieve and models.list carry id, type, display_name, created_at; pages walk by cursor", async () => {
  const one = await anthropic.models.retrieve("acme/model-a");
  expect(one).toMatchObject({ id: "acme/model-a", type: "model", display_name: "Model A", created_at: "1970-01-01T00:00:00.000Z" });

  // Two per page: the client follows `has_more` and `last_id` (as `after_id`) through the whole catalog.
  const walked: string[] = [];
  for await (const model of anthropic.models.list({ limit: 2 })) {
    expect(model).toMatchObject({ type: "model", display_name: expect.any(String), created_at: expect.any(String) });
    walked.push(model.id);
  }
  expect(walked).toEqual(ids);
  const first = await anthropic.models.list({ limit: 2 });
  expect(first.has_more).toBe(ids.length > 2);
  expect(first.last_id).toBe(ids[1]!);
  const before = await anthropic.models.list({ limit: 2, before_id: ids[3]! });
  expect(before.data.map((m) => m.id)).toEqual(ids.slice(1, 3));
});

test("a model written with its slash unencoded resolves too", async () => {
  const res = await gw.request("/models/acme/model-a", { key: null });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ id: "acme/model-a", object: "model", type: "model" });
});

test("an unknown model is a 404 each client recognises (Anthropic's in its shape)", async () => {
  const fromOpenAI = await openai.models.retrieve("acme/nothing").catch((e: unknown) => e);
  expect(fromOpenAI).toBeInstanceOf(OpenAI.NotFoundError);
  const fromAnthropic = await anthropic.models.retrieve("acme/nothing").catch((e: unknown) => e);
  expect(fromAnthropic).toBeInstanceOf(Anthropic.NotFoundError);
  expect((fromAnthropic as ApiError).type).toBe("not_found_error");
  const badCursor = await anthropic.models.list({ after_id: "acme/nothing" }).catch((e: unknown) => e);
  expect(badCursor).toBeInstanceOf(Anthropic.BadRequestError);
});
