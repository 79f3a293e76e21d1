/**
 * Responses `prompt: {id, variables, version?}` names a stored template — a preset — whose system
 * prompt is rendered with `{{variable}}` substitution and applied like the preset (its config under the request).
 * Every upstream adapter receives the rendered text (the fake upstream records what each got); an unknown id is 404,
 * a missing variable 400 naming it, `version` picks that preset version.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { MODEL, startConformance, type Conformance } from "../conformance/support/setup.ts";
import { viewOf } from "../conformance/support/upstream-view.ts";
import { expectError } from "../support/envelope.ts";
import { ADAPTERS, replyOf } from "../support/fake-upstream/fixtures.ts";
import { ADMIN_KEY } from "../support/gateway.ts";
import { submit, TERMINAL, waitForBatch } from "../unit/batches/http-support.ts";

let conf: Conformance;
let client: OpenAI;

const makePreset = async (slug: string, body: Record<string, unknown>) => {
  const res = await conf.gw.request(`/presets/${slug}/responses`, { method: "POST", key: ADMIN_KEY, json: body });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  conf = await startConformance();
  client = new OpenAI({ baseURL: conf.gw.baseUrl, apiKey: conf.gw.inferenceKey, maxRetries: 0 });
  await makePreset("poet", { model: MODEL.openai, instructions: "Write about {{ topic }} for {{audience}}.", max_output_tokens: 77 });
  // Version 2 of another template, so `version` has something to choose between.
  await makePreset("greeter", { model: MODEL.openai, instructions: "Say hello to {{name}}." });
  await makePreset("greeter", { model: MODEL.openai, instructions: "Say goodbye to {{name}}." });
});
afterAll(() => conf.close());
beforeEach(() => conf.fake.reset());

const variables = { topic: "the sea", audience: "children" };
const RENDERED = "Write about the sea for children.";

describe("every upstream receives the rendered template", () => {
  for (const adapter of ADAPTERS) {
    test(`${adapter}: with input, the template is the system prompt before the conversation`, async () => {
      conf.fake.enqueue(replyOf(adapter, "text", false));
      const result = await client.responses.create({ model: MODEL[adapter], prompt: { id: "poet", variables }, input: "Go" });
      expect(result.status).toBe("completed");
      const view = viewOf(adapter, conf.fake.last());
      expect(view.system).toBe(RENDERED);
      expect(view.items).toEqual([{ kind: "text", role: "user", text: "Go" }]);
      // The template's config applies under the request, as a preset's does.
      expect(view.maxTokens).toBe(77);
      // The request's `prompt` is echoed as sent (spec "Responses result").
      expect((result as unknown as { prompt: unknown }).prompt).toEqual({ id: "poet", variables });
    });

    test(`${adapter}: a template alone (no input) is the conversation's user turn`, async () => {
      conf.fake.enqueue(replyOf(adapter, "text", true));
      const stream = await client.responses.create({ model: MODEL[adapter], prompt: { id: "poet", variables }, stream: true });
      let status = "";
      for await (const event of stream) if (event.type === "response.completed") status = event.response.status ?? "";
      expect(status).toBe("completed");
      const view = viewOf(adapter, conf.fake.last());
      expect(view.items).toEqual([{ kind: "text", role: "user", text: RENDERED }]);
    });
  }

  test("the Responses upstream is never sent the gateway's template id (OpenAI would look it up as its own)", async () => {
    conf.fake.enqueue(replyOf("openai-responses", "text", false));
    await client.responses.create({ model: MODEL["openai-responses"], prompt: { id: "poet", variables }, input: "Go" });
    expect(conf.fake.last().body.prompt).toBeUndefined();
  });

  test("the template's model applies when the request names none", async () => {
    conf.fake.enqueue(replyOf("openai", "text", false));
    const res = await conf.gw.request("/responses", { method: "POST", json: { prompt: { id: "poet", variables } } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe(MODEL.openai);
  });
});

describe("variables and versions", () => {
  test("values: strings, numbers and input_text parts fill the template", async () => {
    conf.fake.enqueue(replyOf("openai", "text", false));
    await client.responses.create({
      model: MODEL.openai,
      prompt: { id: "poet", variables: { topic: { type: "input_text", text: "rivers" }, audience: 7 as unknown as string } },
      input: "Go",
    });
    expect(viewOf("openai", conf.fake.last()).system).toBe("Write about rivers for 7.");
  });

  test("version selects that preset version; without it the designated (newest) one is used", async () => {
    conf.fake.enqueue(replyOf("openai", "text", false), replyOf("openai", "text", false));
    await client.responses.create({ model: MODEL.openai, prompt: { id: "greeter", variables: { name: "Ada" }, version: "1" }, input: "Go" });
    expect(viewOf("openai", conf.fake.last()).system).toBe("Say hello to Ada.");
    await client.responses.create({ model: MODEL.openai, prompt: { id: "greeter", variables: { name: "Ada" } }, input: "Go" });
    expect(viewOf("openai", conf.fake.last()).system).toBe("Say goodbye to Ada.");
  });

  test("a missing variable → 400 naming it; nothing reaches the upstream", async () => {
    const res = await conf.gw.request("/responses", { method: "POST", json: { model: MODEL.openai, prompt: { id: "poet", variables: { topic: "x" } }, input: "Go" } });
    const body = await expectError(res, 400, "prompt.variables.audience");
    expect(body.error.message).toContain('"audience"');
    expect(conf.fake.requests).toHaveLength(0);
  });

  test("a variable that is not text (an image) → 400 naming it", async () => {
    const image = { type: "input_image", image_url: "https://example.com/a.png" };
    const res = await conf.gw.request("/responses", { method: "POST", json: { model: MODEL.openai, prompt: { id: "poet", variables: { ...variables, topic: image } }, input: "Go" } });
    await expectError(res, 400, "prompt.variables.topic");
  });

  test("an unknown id → 404; an unknown version → 404; a version that is not a number → 400", async () => {
    const send = (prompt: unknown) => conf.gw.request("/responses", { method: "POST", json: { model: MODEL.openai, prompt, input: "Go" } });
    const unknown = await expectError(await send({ id: "pmpt_nope" }), 404, "prompt.id");
    expect(unknown.error.message).toContain("pmpt_nope");
    await expectError(await send({ id: "greeter", variables: { name: "A" }, version: "9" }), 404, "prompt.version");
    await expectError(await send({ id: "greeter", variables: { name: "A" }, version: "latest" }), 400, "prompt.version");
    expect(conf.fake.requests).toHaveLength(0);
  });

  test("a template and a preset in one request → 400", async () => {
    const res = await conf.gw.request("/responses", { method: "POST", json: { model: "@preset/greeter", prompt: { id: "poet", variables }, input: "Go" } });
    await expectError(res, 400, "prompt");
  });
});

describe("batches", () => {
  test("a batch request's template is rendered at submission, and an unknown one refuses the batch", async () => {
    conf.fake.enqueue(replyOf("openai", "text", false));
    const batch = await submit(conf.gw, { endpoint: "/responses", model: MODEL.openai, requests: [{ custom_id: "t1", body: { prompt: { id: "poet", variables }, input: "Go" } }] });
    const done = (await waitForBatch(conf.gw, batch.id, (b) => TERMINAL.includes(b.status))).batch;
    expect(done.status).toBe("completed");
    expect(viewOf("openai", conf.fake.last()).system).toBe(RENDERED);
    const refused = await conf.gw.request("/batches", { method: "POST", json: { endpoint: "/responses", model: MODEL.openai, requests: [{ custom_id: "t2", body: { prompt: { id: "nope" }, input: "Go" } }] } });
    expect((await expectError(refused, 400)).error.message).toContain("Prompt template not found");
  });
});
