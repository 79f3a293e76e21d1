/**
 * The response-healing plugin through HTTP, against a fake upstream scripted to answer with
 * broken JSON: repaired replies come back as clean JSON (and checked against the schema), what cannot be repaired
 * comes back untouched with a warning, streamed replies pass through untouched and say so, and requests without a
 * JSON format are left alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const MODEL = "acme/json";
let upstream: ScriptedModel;
let gw: TestGateway;
let openai: OpenAI;
/** What the fake model answers next. */
let reply = "";

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: reply }));
  gw = await startTestGateway({
    file: { providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", context_length: 100_000 }] }] },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0, defaultHeaders: { "x-service-metadata": "enabled" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const PERSON = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};

type Metadata = { pipeline?: Array<Record<string, unknown>>; warnings?: Array<Record<string, unknown>> };

async function ask(text: string, format: Record<string, unknown> | undefined, plugins: unknown[] = [{ id: "response-healing" }]) {
  reply = text;
  const completion = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: "user", content: "Give me a person as JSON." }],
    ...(format ? { response_format: format as never } : {}),
    plugins,
  } as never);
  const { choices, service_metadata } = completion as unknown as { choices: Array<{ message: { content: string } }>; service_metadata: Metadata };
  return { content: choices[0]!.message.content, metadata: service_metadata, healing: (service_metadata.pipeline ?? []).filter((e) => e.name === "response-healing") };
}

const schemaFormat = { type: "json_schema", json_schema: { name: "person", schema: PERSON, strict: true } };

describe("non-streamed json_schema / json_object replies", () => {
  test.each([
    ["a markdown fence", '```json\n{"name": "Ann", "age": 31}\n```', ["extracted_from_fence"]],
    ["prose around it", 'Here you go: {"name": "Ann", "age": 31} — anything else?', ["extracted_from_prose"]],
    ["trailing commas, unquoted keys, single quotes", "{name: 'Ann', age: 31,}", ["repaired_syntax"]],
    ["missing brackets", '{"name": "Ann", "age": 31', ["repaired_syntax"]],
  ])("%s is repaired into clean JSON that matches the schema", async (_label, text, fixes) => {
    const { content, healing } = await ask(text, schemaFormat);
    expect(content).toBe('{"name":"Ann","age":31}');
    expect(healing).toEqual([{ type: "plugin", name: "response-healing", mode: "json_schema", original_length: text.length, improved: true, healed_length: content.length, fixes }]);
  });

  test("json_object: repaired without a schema", async () => {
    const { content, healing } = await ask("```\n{'ok': true,}\n```", { type: "json_object" });
    expect(content).toBe('{"ok":true}');
    expect(healing[0]).toMatchObject({ mode: "json_object", improved: true });
  });

  test("valid JSON is untouched and nothing is reported", async () => {
    const text = '{"name": "Ann",\n "age": 31}';
    const { content, healing } = await ask(text, schemaFormat);
    expect(content).toBe(text);
    expect(healing).toEqual([]);
  });

  test("what cannot be repaired (or does not match the schema) comes back untouched, with a warning", async () => {
    const prose = await ask("Sorry, I can't produce that.", schemaFormat);
    expect(prose.content).toBe("Sorry, I can't produce that.");
    expect(prose.healing[0]).toMatchObject({ improved: false, reason: "no JSON object or array could be recovered" });
    expect(prose.metadata.warnings).toContainEqual({ code: "response_healing", field: "response_format", message: "The reply was returned untouched: no JSON object or array could be recovered" });

    const mismatch = await ask("{name: 'Ann', age: 'thirty'}", schemaFormat);
    expect(mismatch.content).toBe("{name: 'Ann', age: 'thirty'}");
    expect(mismatch.healing[0]).toMatchObject({ improved: false, reason: "the repaired JSON does not match the schema: /age must be integer" });
  });

  test("a reply cut by max_tokens is closed where possible and says it was cut", async () => {
    reply = '{"name": "Ann", "ag';
    upstream.script = () => ({ text: reply, finish: "length" });
    try {
      const { content, healing } = await ask(reply, { type: "json_object" });
      expect(JSON.parse(content)).toMatchObject({ name: "Ann" });
      expect(healing[0]).toMatchObject({ improved: true, truncated_by_max_tokens: true });
    } finally {
      upstream.script = () => ({ text: reply });
    }
  });

  test("without a JSON format, or without the plugin, replies are not touched", async () => {
    expect((await ask("```json\n{a: 1}\n```", undefined)).content).toBe("```json\n{a: 1}\n```");
    expect((await ask("```json\n{a: 1}\n```", { type: "json_object" }, [])).content).toBe("```json\n{a: 1}\n```");
  });
});

describe("the schema's patterns", () => {
  /** 40 branches whose patterns backtrack exponentially on a run of `a`s that ends badly (each about 2 s in RegExp). */
  const hostile = {
    type: "json_schema",
    json_schema: {
      name: "hostile",
      schema: { type: "object", properties: { s: { anyOf: Array.from({ length: 40 }, (_, i) => ({ type: "string", pattern: `^(a+)+b${i}$` })) } }, required: ["s"] },
    },
  };

  test("40 anyOf branches of catastrophic patterns are checked to the end, and the gateway keeps serving", async () => {
    const text = JSON.stringify({ s: `${"a".repeat(28)}!` });
    const person = '{"name": "Ann", "age": 31}';
    // Two requests at once: each gets the reply its schema is for.
    upstream.script = (body) => ({ text: (body.response_format as { json_schema: { name: string } }).json_schema.name === "hostile" ? text : person });
    let checked, other;
    try {
      [checked, other] = await Promise.all([ask(text, hostile), ask(person, schemaFormat)]);
    } finally {
      upstream.script = () => ({ text: reply });
    }
    expect(checked.content).toBe(text);
    expect(checked.healing[0]).toMatchObject({ improved: false, reason: 'the JSON does not match the schema: /s must match pattern "^(a+)+b0$"' });
    expect(checked.metadata.warnings).toEqual([{ code: "response_healing", field: "response_format", message: `The reply was returned untouched: the JSON does not match the schema: /s must match pattern "^(a+)+b0$"` }]);
    expect(other.content).toBe(person);
    // A value one branch accepts passes.
    const accepted = JSON.stringify({ s: "aaab39" });
    expect((await ask(accepted, hostile)).healing).toEqual([]);
  }, 15_000);

  test("a pattern the linear-time engine refuses leaves the reply unchecked against the schema, with a warning", async () => {
    const format = { type: "json_schema", json_schema: { name: "x", schema: { type: "object", properties: { s: { type: "string", pattern: "(?<=a)b" } } } } };
    const { content, healing, metadata } = await ask("{s: 'xyz',}", format);
    expect(content).toBe('{"s":"xyz"}');
    expect(healing[0]).toMatchObject({ improved: true, schema_checked: false });
    expect(metadata.warnings).toContainEqual({
      code: "response_healing",
      field: "response_format",
      message: 'The reply was not checked against the schema: its pattern "(?<=a)b": lookahead and lookbehind are not supported',
    });
  });
});

describe("streamed replies", () => {
  test("pass through untouched; the pipeline says so", async () => {
    reply = "```json\n{name: 'Ann', age: 31}\n```";
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Give me a person as JSON." }],
      response_format: schemaFormat as never,
      stream: true,
      plugins: [{ id: "response-healing" }],
    } as never);
    let text = "";
    let metadata: Metadata | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<{ choices: Array<{ delta?: { content?: string } }>; service_metadata?: Metadata }>) {
      text += chunk.choices[0]?.delta?.content ?? "";
      metadata = chunk.service_metadata ?? metadata;
    }
    expect(text).toBe(reply);
    expect(metadata?.pipeline).toContainEqual({ type: "plugin", name: "response-healing", mode: "json_schema", improved: false, skipped: "streaming", summary: "streamed replies pass through untouched" });
  });
});

describe("options", () => {
  test("response-healing takes no options: anything else is a 400 naming it", async () => {
    const res = await gw.request("/chat/completions", {
      method: "POST",
      json: { model: MODEL, messages: [{ role: "user", content: "x" }], plugins: [{ id: "response-healing", aggressive: true }] },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; metadata: { param: string } } };
    expect(body.error.metadata.param).toBe("plugins[0].aggressive");
    expect(body.error.message).toContain('unknown option of plugin "response-healing"');
  });
});
