/** The official OpenRouter SDK (whose API the spec mirrors) against the gateway: presets end to end, then inference. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

test("create a preset from a chat body, read it and its versions, and use it for a chat completion", async () => {
  const admin = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: gw.baseUrl });
  const slug = `sdk-${crypto.randomUUID().slice(0, 8)}`;
  const created = await admin.presets.createPresetsChatCompletions({
    slug,
    chatRequest: { model: "simulator/small", temperature: 0.4, messages: [{ role: "system", content: "Answer in French." }, { role: "user", content: "ignored" }] },
  });
  const preset = created.data;
  expect(preset.slug).toBe(slug);
  expect(preset.status).toBe("active");
  expect(preset.designatedVersion!.version).toBe(1);
  expect(preset.designatedVersion!.config).toMatchObject({ model: "simulator/small", temperature: 0.4 });
  expect(preset.designatedVersion!.systemPrompt).toBe("Answer in French.");

  await admin.presets.createPresetsChatCompletions({ slug, chatRequest: { model: "simulator/large", messages: [{ role: "user", content: "x" }] } });
  const read = await admin.presets.get({ slug });
  expect(read.data.designatedVersion!.version).toBe(2);
  const v1 = await admin.presets.getVersion({ slug, version: "1" });
  expect(v1.data!.config).toMatchObject({ model: "simulator/small" });

  const user = new OpenRouter({ apiKey: gw.inferenceKey, serverURL: gw.baseUrl });
  const reply = await user.chat.send({ chatRequest: { model: `@preset/${slug}`, messages: [{ role: "user", content: "hello" }], stream: false } });
  if (!("choices" in reply)) throw new Error("expected a non-streamed chat result");
  expect(reply.model).toBe("simulator/large");
  expect(reply.choices[0]!.message.content).toBeTruthy();
});

test("presets from a messages body and a responses body; list and listVersions page through them", async () => {
  const admin = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: gw.baseUrl });
  const slug = `sdk-${crypto.randomUUID().slice(0, 8)}`;
  const fromMessages = await admin.presets.createPresetsMessages({
    slug,
    messagesRequest: { model: "simulator/small", maxTokens: 64, system: "Be brief.", messages: [{ role: "user", content: "ignored" }] },
  });
  expect(fromMessages.data.designatedVersion!.config).toMatchObject({ model: "simulator/small", max_tokens: 64 });
  expect(fromMessages.data.designatedVersion!.systemPrompt).toBe("Be brief.");
  const fromResponses = await admin.presets.createPresetsResponses({ slug, responsesRequest: { model: "simulator/large", instructions: "Be kind.", input: "ignored" } });
  expect(fromResponses.data.designatedVersion).toMatchObject({ version: 2, systemPrompt: "Be kind." });

  const versions = [];
  for await (const page of await admin.presets.listVersions({ slug })) versions.push(...page.result.data);
  expect(versions.map((v) => v?.version)).toEqual([1, 2]);
  const slugs = [];
  for await (const page of await admin.presets.list()) slugs.push(...page.result.data.map((p) => p.slug));
  expect(slugs).toContain(slug);
});
