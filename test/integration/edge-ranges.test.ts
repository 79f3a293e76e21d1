/**
 * One range per meaning, whichever format carries it: Responses accepted `temperature` 12345 and
 * `top_p` -1, Messages `temperature` 12345, and nothing capped `tools`, Messages' `stop_sequences` and `metadata`,
 * or the output cap. Just outside a bound is a 400 naming the field on every inference endpoint; exactly at the
 * bounds a body is accepted (checked through preset creation, which validates the same schema and runs nothing).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

type Format = "chat" | "messages" | "responses";
const PATH: Record<Format, string> = { chat: "/chat/completions", messages: "/messages", responses: "/responses" };
const BASE: Record<Format, () => Record<string, unknown>> = {
  chat: () => ({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] }),
  messages: () => ({ model: "simulator/small", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  responses: () => ({ model: "simulator/small", input: "hi" }),
};

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const tools: Record<Format, (n: number) => unknown[]> = {
  chat: (n) => range(n).map((i) => ({ type: "function", function: { name: `f${i}`, parameters: { type: "object" } } })),
  messages: (n) => range(n).map((i) => ({ name: `f${i}`, input_schema: { type: "object" } })),
  responses: (n) => range(n).map((i) => ({ type: "function", name: `f${i}`, parameters: { type: "object" } })),
};
const pairs = (n: number) => Object.fromEntries(range(n).map((i) => [`k${i}`, "v"]));
const models = (n: number) => range(n).map((i) => `simulator/m${i}`);
const stops = (n: number) => range(n).map((i) => `s${i}`);

/** [meaning, format, fields just outside the bound, the field the 400 must name]. */
const OUTSIDE: ReadonlyArray<readonly [string, Format, Record<string, unknown>, string]> = [
  ["temperature", "chat", { temperature: 2.01 }, "temperature"],
  ["temperature", "messages", { temperature: 12345 }, "temperature"],
  ["temperature", "responses", { temperature: 12345 }, "temperature"],
  ["top_p", "chat", { top_p: -0.01 }, "top_p"],
  ["top_p", "messages", { top_p: 1.01 }, "top_p"],
  ["top_p", "responses", { top_p: -1 }, "top_p"],
  ["top_k", "chat", { top_k: -1 }, "top_k"],
  ["top_k", "messages", { top_k: -1 }, "top_k"],
  ["top_k", "responses", { top_k: -1 }, "top_k"],
  ["penalties", "chat", { presence_penalty: -2.01 }, "presence_penalty"],
  ["penalties", "responses", { frequency_penalty: 2.01 }, "frequency_penalty"],
  ["penalties", "responses", { presence_penalty: 99 }, "presence_penalty"],
  ["repetition_penalty", "chat", { repetition_penalty: 0 }, "repetition_penalty"],
  ["min_p", "chat", { min_p: 1.5 }, "min_p"],
  ["top_a", "chat", { top_a: -0.5 }, "top_a"],
  ["logit_bias", "chat", { logit_bias: { "50256": 101 } }, "logit_bias.50256"],
  ["top_logprobs", "responses", { top_logprobs: 21 }, "top_logprobs"],
  ["output cap", "chat", { max_tokens: 1_000_001 }, "max_tokens"],
  ["output cap", "chat", { max_completion_tokens: 1_000_001 }, "max_completion_tokens"],
  ["output cap", "messages", { max_tokens: 1_000_001 }, "max_tokens"],
  ["output cap", "responses", { max_output_tokens: 1_000_001 }, "max_output_tokens"],
  ["reasoning budget", "chat", { reasoning: { max_tokens: 1_000_001 } }, "reasoning.max_tokens"],
  ["reasoning budget", "messages", { thinking: { type: "enabled", budget_tokens: 1_000_001 } }, "thinking.budget_tokens"],
  ["reasoning budget", "responses", { reasoning: { max_tokens: 1_000_001 } }, "reasoning.max_tokens"],
  ["stop sequences", "chat", { stop: stops(5) }, "stop"],
  ["stop sequences", "messages", { stop_sequences: stops(5) }, "stop_sequences"],
  ["tools", "chat", { tools: tools.chat(513) }, "tools"],
  ["tools", "messages", { tools: tools.messages(513) }, "tools"],
  ["tools", "responses", { tools: tools.responses(513) }, "tools"],
  ["metadata", "chat", { metadata: pairs(17) }, "metadata"],
  ["metadata", "messages", { metadata: pairs(17) }, "metadata"],
  ["metadata", "responses", { metadata: pairs(17) }, "metadata"],
  ["models", "chat", { models: models(33) }, "models"],
  ["models", "messages", { models: models(33) }, "models"],
  ["models", "responses", { models: models(33) }, "models"],
];

describe("just outside a bound: 400 naming the field", () => {
  for (const [meaning, format, fields, param] of OUTSIDE) {
    test(`${meaning} on ${format}: ${JSON.stringify(fields).slice(0, 60)}`, async () => {
      const res = await gw.request(PATH[format], { method: "POST", json: { ...BASE[format](), ...fields } });
      const body = (await res.json()) as { error: { message: string; metadata: { error_type: string; param?: string } } };
      expect(res.status).toBe(400);
      expect(body.error.metadata).toMatchObject({ error_type: "invalid_request", param });
      expect(body.error.message).toContain(param);
    });
  }
});

/** Every bound at once, exactly at its limit, per format. */
const AT_BOUNDS: Record<Format, Record<string, unknown>> = {
  chat: {
    temperature: 2, top_p: 1, top_k: 0, frequency_penalty: -2, presence_penalty: 2, repetition_penalty: 2, min_p: 1, top_a: 0,
    logit_bias: { "50256": -100 }, top_logprobs: 20, max_tokens: 1_000_000, max_completion_tokens: 1, reasoning: { max_tokens: 1_000_000 },
    stop: stops(4), tools: tools.chat(512), metadata: pairs(16), models: models(32),
  },
  messages: {
    temperature: 2, top_p: 0, top_k: 0, max_tokens: 1_000_000, thinking: { type: "enabled", budget_tokens: 1_000_000 },
    stop_sequences: stops(4), tools: tools.messages(512), metadata: { user_id: "u", ...pairs(15) }, models: models(32),
  },
  responses: {
    temperature: 0, top_p: 1, top_k: 0, frequency_penalty: 2, presence_penalty: -2, top_logprobs: 0, max_output_tokens: 1_000_000,
    reasoning: { max_tokens: 0 }, tools: tools.responses(512), metadata: pairs(16), models: models(32),
  },
};

describe("exactly at the bounds: accepted", () => {
  for (const format of ["chat", "messages", "responses"] as const) {
    test(format, async () => {
      const res = await gw.request(`/presets/bounds-${format}${PATH[format]}`, { method: "POST", key: ADMIN_KEY, json: { ...BASE[format](), ...AT_BOUNDS[format] } });
      expect(res.status, await res.clone().text()).toBe(200);
    });
  }
});
