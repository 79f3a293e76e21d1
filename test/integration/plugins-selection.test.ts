/**
 * Plugin selection through HTTP: `plugins` in every format and in presets, the operator's
 * defaults in the config (`enabled`, default options, `locked`), and the 400s for unknown ids and options, with
 * the official clients. The built-in response-healing plugin is the witness: the fake model always answers broken
 * JSON, so whether the reply comes back repaired shows whether the plugin ran.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { buildConfig } from "../../core/config/load.ts";
import { buildRegistry } from "../../core/bootstrap.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";

const MODEL = "acme/json";
const BROKEN = "{answer: 'yes',}";
const HEALED = '{"answer":"yes"}';
let upstream: ScriptedModel;
/** No operator defaults. */
let plain: TestGateway;
/** response-healing on for everyone; context-compression locked off. */
let operated: TestGateway;
/** response-healing locked on. */
let locked: TestGateway;

const providers = () => [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", context_length: 1_024 }] }];

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: BROKEN }));
  plain = await startTestGateway({ file: { providers: providers() } });
  operated = await startTestGateway({
    file: { providers: providers(), plugins: { "response-healing": { enabled: true }, "context-compression": { enabled: false, locked: true } } },
  });
  locked = await startTestGateway({ file: { providers: providers(), plugins: { "response-healing": { enabled: true, locked: true } } } });
});
afterAll(async () => {
  await Promise.all([plain.close(), operated.close(), locked.close()]);
  upstream.stop();
});

interface Reply {
  status: number;
  content: string | undefined;
  warnings: Array<Record<string, unknown>>;
  error?: { message: string; metadata: Record<string, unknown> };
}

async function chat(gw: TestGateway, extra: Record<string, unknown>): Promise<Reply> {
  const res = await gw.request("/chat/completions", {
    method: "POST",
    headers: { "x-service-metadata": "enabled" },
    json: { model: MODEL, messages: [{ role: "user", content: "yes or no?" }], response_format: { type: "json_object" }, ...extra },
  });
  const json = (await res.json()) as {
    choices?: Array<{ message: { content: string } }>;
    service_metadata?: { warnings?: Array<Record<string, unknown>> };
    error?: Reply["error"];
  };
  return { status: res.status, content: json.choices?.[0]?.message.content, warnings: json.service_metadata?.warnings ?? [], ...(json.error ? { error: json.error } : {}) };
}

describe("request entries in every format", () => {
  test("chat: named → runs; not named → does not", async () => {
    expect((await chat(plain, { plugins: [{ id: "response-healing" }] })).content).toBe(HEALED);
    expect((await chat(plain, {})).content).toBe(BROKEN);
  });

  test("Responses (openai client) and Messages (Anthropic client) carry plugins too", async () => {
    const openai = new OpenAI({ baseURL: plain.baseUrl, apiKey: plain.inferenceKey, maxRetries: 0 });
    const response = await openai.responses.create({ model: MODEL, input: "yes or no?", text: { format: { type: "json_object" } }, plugins: [{ id: "response-healing" }] } as never);
    expect((response as unknown as { output_text: string }).output_text).toBe(HEALED);

    const anthropic = new Anthropic({ baseURL: plain.origin + "/api", apiKey: plain.inferenceKey, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 50,
      messages: [{ role: "user", content: "yes or no?" }],
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } } },
      plugins: [{ id: "response-healing" }],
    } as never);
    expect(message.content[0]).toMatchObject({ type: "text", text: HEALED });
  });

  test("an unknown id or option is a 400 naming the field, in every format", async () => {
    const unknownId = await chat(plain, { plugins: [{ id: "response-healing" }, { id: "no-such-plugin" }] });
    expect([unknownId.status, unknownId.error?.metadata.param, unknownId.error?.message]).toEqual([400, "plugins[1].id", 'plugins[1].id: plugin "no-such-plugin" is not available on this gateway']);

    const responses = await plain.request("/responses", { method: "POST", json: { model: MODEL, input: "x", plugins: [{ id: "context-compression", engine: "middle-in" }] } });
    expect(responses.status).toBe(400);
    expect(((await responses.json()) as { error: { metadata: { param: string } } }).error.metadata.param).toBe("plugins[0].engine");

    const messages = await plain.request("/messages", { method: "POST", json: { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "x" }], plugins: [{ id: "file-parser", max_bytes: 10 }] } });
    expect(messages.status).toBe(400);
    expect(((await messages.json()) as { error: { message: string } }).error.message).toMatch(/^plugins\[0\]\.max_bytes: Expected integer to be greater or equal to 1024/);
  });
});

describe("presets", () => {
  test("a preset's plugins apply to the requests that use it", async () => {
    const created = await plain.request("/presets/healing/chat/completions", {
      key: ADMIN_KEY,
      method: "POST",
      json: { model: MODEL, messages: [{ role: "user", content: "x" }], plugins: [{ id: "response-healing" }] },
    });
    expect(created.status).toBe(200);
    const res = await plain.request("/chat/completions", { method: "POST", json: { model: "@preset/healing", messages: [{ role: "user", content: "x" }], response_format: { type: "json_object" } } });
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(HEALED);
  });
});

describe("operator defaults", () => {
  test("enabled: true turns a plugin on for everyone; {id, enabled: false} turns it off for one request", async () => {
    expect((await chat(operated, {})).content).toBe(HEALED);
    const off = await chat(operated, { plugins: [{ id: "response-healing", enabled: false }] });
    expect(off.content).toBe(BROKEN);
    expect(off.warnings.filter((w) => w.code === "plugin_locked")).toEqual([]);
  });

  test("locked: a request cannot turn the plugin off or change it; the entry is ignored with a warning", async () => {
    const reply = await chat(locked, { plugins: [{ id: "response-healing", enabled: false }] });
    expect(reply.status).toBe(200);
    expect(reply.content).toBe(HEALED);
    expect(reply.warnings).toContainEqual({ code: "plugin_locked", field: "plugins[0]", message: 'The operator locked plugin "response-healing"; this entry was ignored' });
  });

  test("locked off: a request naming the plugin does not get it (a default-on plugin included)", async () => {
    const long = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ${"word ".repeat(20)}` }));
    const reply = await chat(operated, { messages: long, response_format: undefined, plugins: [{ id: "context-compression" }] });
    expect(reply.warnings.map((w) => w.code)).toContain("plugin_locked");
    expect((upstream.bodies.at(-1)!.messages as unknown[]).length).toBe(200);
  });

  test("at start-up: a switch that is not a boolean, or an option the plugin refuses, stops the process naming the field", async () => {
    const start = (plugins: Record<string, Record<string, unknown>>) => buildRegistry(buildConfig({ plugins }, { DATABASE_URL: "sqlite://:memory:" }, process.cwd()));
    await expect(start({ "response-healing": { enabled: "yes" } })).rejects.toThrow('invalid config field "plugins.response-healing.enabled": must be a boolean');
    await expect(start({ "context-compression": { engine: "other" } })).rejects.toThrow(/^config plugins\.context-compression: invalid options\.engine/);
    await expect(start({ "context-compression": { locked: true, enabled: true, engine: "middle-out" } })).resolves.toBeDefined();
  });
});
