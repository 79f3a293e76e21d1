/**
 * The simulator answers a structured-output request with JSON built from the schema, as it
 * builds tool arguments: chat `response_format` json_schema / json_object, Responses `text.format`, Messages
 * `output_config.format`. The official clients' parsing helpers (`openai`'s `chat.completions.parse()` and
 * `responses.parse()`, `@anthropic-ai/sdk`'s `messages.parse()`), streamed and not, get an object the schema accepts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchemaOutputFormat } from "@anthropic-ai/sdk/helpers/json-schema";
import { Ajv } from "ajv";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  gw = await startTestGateway();
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => gw.close());

const model = "simulator/small";
const prompt = "Describe a city.";

/** A strict schema as clients send it: nested objects, an array with a minimum, a reference, a nullable field. */
const CITY = {
  type: "object",
  properties: {
    name: { type: "string" },
    population: { type: "integer", minimum: 1000 },
    capital: { type: "boolean" },
    landmarks: { type: "array", minItems: 1, items: { $ref: "#/$defs/Landmark" } },
    mayor: { anyOf: [{ type: "null" }, { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false }] },
  },
  required: ["name", "population", "capital", "landmarks", "mayor"],
  additionalProperties: false,
  $defs: {
    Landmark: { type: "object", properties: { name: { type: "string" }, built: { type: "integer" } }, required: ["name", "built"], additionalProperties: false },
  },
} as const;

const validate = new Ajv({ strict: false }).compile(CITY);

function expectCity(value: unknown): void {
  expect(validate(value)).toBe(true);
  expect(value).toEqual({ name: "simulated", population: 1000, capital: true, landmarks: [{ name: "simulated", built: 1 }], mayor: { name: "simulated" } });
}

const chatFormat = { type: "json_schema", json_schema: { name: "city", strict: true, schema: CITY } } as const;
const responsesFormat = { type: "json_schema", name: "city", strict: true, schema: CITY } as const;

describe("chat completions (openai SDK)", () => {
  test("parse(): message.parsed is an object the schema accepts", async () => {
    const completion = await openai.chat.completions.parse({ model, messages: [{ role: "user", content: prompt }], response_format: chatFormat });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expectCity(completion.choices[0]!.message.parsed);
  });

  test("stream() with the format: the final completion is parsed the same", async () => {
    const stream = openai.chat.completions.stream({ model, messages: [{ role: "user", content: prompt }], response_format: chatFormat });
    let deltas = 0;
    stream.on("content.delta", () => void deltas++);
    const final = await stream.finalChatCompletion();
    expect(deltas).toBeGreaterThan(1);
    expectCity(final.choices[0]!.message.parsed);
  });

  test("a schema demanding a hundred million items is answered (bounded), and the gateway keeps serving", async () => {
    const huge = { type: "object", properties: { a: { type: "array", minItems: 100_000_000, items: { type: "string" } } }, required: ["a"] };
    const completion = await openai.chat.completions.create({ model, messages: [{ role: "user", content: prompt }], response_format: { type: "json_schema", json_schema: { name: "huge", schema: huge } } });
    const parsed = JSON.parse(completion.choices[0]!.message.content ?? "") as { a: string[] };
    expect(parsed.a.length).toBeGreaterThan(0);
    expect(parsed.a.length).toBeLessThan(100_000_000);
    expect((await openai.models.list()).data.length).toBeGreaterThan(0);
  });

  test("json_object: the content is a JSON object", async () => {
    const completion = await openai.chat.completions.create({ model, messages: [{ role: "user", content: "Answer in JSON." }], response_format: { type: "json_object" } });
    const parsed = JSON.parse(completion.choices[0]!.message.content ?? "") as unknown;
    expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
  });
});

describe("responses (openai SDK)", () => {
  test("parse() with text.format: output_parsed is an object the schema accepts", async () => {
    const response = await openai.responses.parse({ model, input: prompt, text: { format: responsesFormat } });
    expect(response.status).toBe("completed");
    expectCity(response.output_parsed);
  });

  test("stream() with text.format: the final response is parsed the same", async () => {
    const stream = openai.responses.stream({ model, input: prompt, text: { format: responsesFormat } });
    const final = await stream.finalResponse();
    expectCity(final.output_parsed);
  });
});

describe("messages (@anthropic-ai/sdk)", () => {
  const format = jsonSchemaOutputFormat({
    type: "object",
    properties: { name: { type: "string" }, population: { type: "integer" } },
    required: ["name", "population"],
    additionalProperties: false,
  });

  test("parse() with output_config.format: parsed_output has the schema's fields", async () => {
    const message = await anthropic.messages.parse({ model, max_tokens: 256, messages: [{ role: "user", content: prompt }], output_config: { format } });
    expect(message.parsed_output).toEqual({ name: "simulated", population: 1 });
  });

  test("stream() with output_config.format: the final message is parsed the same", async () => {
    const final = await anthropic.messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: prompt }], output_config: { format } }).finalMessage();
    expect(final.parsed_output).toEqual({ name: "simulated", population: 1 });
  });
});
