/**
 * Using presets in inference through the real clients: `openai` for chat and
 * Responses, `@anthropic-ai/sdk` for Messages. The loopback simulator records what the upstream received, which is
 * where a merge shows: request fields win, the preset's system prompt comes first, tools merge by identity.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

type Upstream = { model: string; temperature?: number; max_completion_tokens?: number; messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string; description?: string } }> };

let upstream: SimulatorServer;
let gw: TestGateway;
let openai: OpenAI;

const schema = { type: "object", properties: { city: { type: "string" } } };
const tool = (name: string, description: string) => ({ type: "function" as const, function: { name, description, parameters: schema } });

/** What the upstream received for the request whose user text carries `marker`. */
function seen(marker: string): Upstream {
  const found = upstream.requests.filter((r) => JSON.stringify(r.body).includes(marker));
  expect(found.length).toBe(1);
  return found[0]!.body as Upstream;
}

const makePreset = async (slug: string, body: Record<string, unknown>, format = "chat/completions") => {
  const res = await gw.request(`/presets/${slug}/${format}`, { method: "POST", key: ADMIN_KEY, json: body });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  upstream = startSimulatorServer({ record: true });
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.url, api_key: "k", models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  await makePreset("pirate", {
    model: "acme/model-a",
    temperature: 0.3,
    max_tokens: 30,
    messages: [{ role: "system", content: "You are a pirate." }, { role: "user", content: "ignored" }],
    tools: [tool("get_weather", "preset weather"), tool("get_time", "preset time")],
    tool_choice: "none",
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

describe("chat completions (openai client)", () => {
  test('model "@preset/slug": the preset supplies model, sampling, max tokens, system prompt and tools', async () => {
    const reply = await openai.chat.completions.create({ model: "@preset/pirate", messages: [{ role: "user", content: "Ahoy m1" }] });
    expect(reply.object).toBe("chat.completion");
    const body = seen("m1");
    expect(body.model).toBe("model-a");
    expect(body.temperature).toBe(0.3);
    expect(body.max_completion_tokens).toBe(30);
    expect(body.messages[0]).toEqual({ role: "system", content: "You are a pirate." });
    expect(body.tools?.map((t) => t.function.name)).toEqual(["get_weather", "get_time"]);
  });

  test('model "vendor/model@preset/slug": request fields override preset fields; the preset prompt precedes the request\'s own system message', async () => {
    await openai.chat.completions.create({
      model: "acme/model-a@preset/pirate",
      temperature: 0.9,
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Ahoy m2" }],
    });
    const body = seen("m2");
    expect(body.temperature).toBe(0.9);
    expect(body.max_completion_tokens).toBe(30);
    // The upstream adapter joins system parts into one system message: the preset's text comes first.
    expect(body.messages[0]).toEqual({ role: "system", content: "You are a pirate.\n\nBe brief." });
  });

  test('"preset" beside a model: the request\'s model wins over the preset\'s', async () => {
    await makePreset("sim-default", { model: "simulator/small", temperature: 0.7, messages: [{ role: "user", content: "x" }] });
    const params = { model: "acme/model-a", preset: "sim-default", messages: [{ role: "user", content: "Ahoy m3" }] };
    const reply = await openai.chat.completions.create(params as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect((reply as unknown as { provider: string }).provider).toBe("acme");
    expect(seen("m3")).toMatchObject({ model: "model-a", temperature: 0.7 });
  });

  test("tools merge by identity: a request tool replaces the preset's namesake in place, request-only tools are appended", async () => {
    await openai.chat.completions.create({
      model: "@preset/pirate",
      messages: [{ role: "user", content: "Ahoy m4" }],
      tools: [tool("lookup", "request lookup"), tool("get_weather", "request weather")],
    });
    const tools = seen("m4").tools!.map((t) => [t.function.name, t.function.description]);
    expect(tools).toEqual([
      ["get_weather", "request weather"],
      ["get_time", "preset time"],
      ["lookup", "request lookup"],
    ]);
  });

  test("the newest version is used as soon as it is created", async () => {
    await makePreset("pirate", { model: "acme/model-a", temperature: 0.1, messages: [{ role: "system", content: "You are a parrot." }, { role: "user", content: "x" }] });
    await openai.chat.completions.create({ model: "@preset/pirate", messages: [{ role: "user", content: "Ahoy m5" }] });
    const body = seen("m5");
    expect(body.temperature).toBe(0.1);
    expect(body.messages[0]!.content).toBe("You are a parrot.");
    expect(body.tools).toBeUndefined();
  });

  test("streaming with a preset works like any stream", async () => {
    const stream = await openai.chat.completions.create({ model: "@preset/pirate", stream: true, messages: [{ role: "user", content: "Ahoy m6" }] });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(seen("m6").messages[0]!.content).toBe("You are a parrot.");
  });

  test("an unknown preset, or another workspace's, is 404", async () => {
    const error = await openai.chat.completions.create({ model: "@preset/nope", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain("Preset not found: nope");
    const store = gw.gateway.deps.store;
    const other = await store.workspaces.create("elsewhere");
    const key = newSecret();
    await store.keys.create({ hash: hashSecret(key), workspaceId: other.id, name: "k", label: labelOf(key), isManagement: false, limit: null, limitReset: null, expiresAt: null });
    const foreign = new OpenAI({ baseURL: gw.baseUrl, apiKey: key, maxRetries: 0 });
    const denied = await foreign.chat.completions.create({ model: "@preset/pirate", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("a malformed reference is a 400 before anything runs", async () => {
    const error = await openai.chat.completions.create({ model: "@preset/has space", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe("Responses (openai client)", () => {
  test("a preset made from a chat body applies to a Responses request: instructions, max_output_tokens, temperature", async () => {
    await makePreset("french", { model: "acme/model-a", temperature: 0.2, max_tokens: 25, messages: [{ role: "system", content: "Answer in French." }, { role: "user", content: "x" }] });
    const reply = await openai.responses.create({ model: "@preset/french", input: "Hello r1", instructions: "Be brief." });
    expect(reply.status).toBe("completed");
    expect(reply.instructions).toBe("Answer in French.\n\nBe brief.");
    expect(reply.temperature).toBe(0.2);
    expect(reply.max_output_tokens).toBe(25);
    const body = seen("r1");
    expect(body.messages[0]).toEqual({ role: "system", content: "Answer in French.\n\nBe brief." });
    expect(body).toMatchObject({ model: "model-a", temperature: 0.2, max_completion_tokens: 25 });
  });
});

describe("Messages (@anthropic-ai/sdk)", () => {
  test("a preset made from a Messages body applies to a Messages request: system prepended, max_tokens, model", async () => {
    await makePreset("terse", { model: "acme/model-a", max_tokens: 20, system: "You are terse.", temperature: 0.4, messages: [{ role: "user", content: "x" }] }, "messages");
    const anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
    const params = { model: "@preset/terse", max_tokens: 12, system: "Own rules.", messages: [{ role: "user" as const, content: "Hello a1" }] };
    const reply = await anthropic.messages.create(params);
    expect(reply.type).toBe("message");
    const body = seen("a1");
    expect(body.model).toBe("model-a");
    expect(body.temperature).toBe(0.4);
    // The request's own max_tokens wins over the preset's.
    expect(body.max_completion_tokens).toBe(12);
    expect(body.messages[0]).toEqual({ role: "system", content: "You are terse.\n\nOwn rules." });
  });

  test("a preset made from a chat body fills max_tokens and tools of a Messages request", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
    await makePreset("tooling", { model: "acme/model-a", max_tokens: 33, messages: [{ role: "user", content: "x" }], tools: [tool("get_weather", "preset weather")] });
    const params = { model: "@preset/tooling", max_tokens: 33, messages: [{ role: "user" as const, content: "Hello a2" }], tools: [{ name: "lookup", input_schema: { type: "object" as const, properties: {} } }] };
    await anthropic.messages.create(params);
    expect(seen("a2").tools!.map((t) => t.function.name)).toEqual(["get_weather", "lookup"]);
  });
});
