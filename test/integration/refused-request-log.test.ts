/**
 * Requests refused before the pipeline, sent by the official clients, each get one request log line:
 * status, method, path, why (`error_type`), the key's hash prefix when the key was good — and never a key, nor
 * the query string.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import pino from "pino";
import { Writable } from "node:stream";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Line = Record<string, unknown> & { msg: string };
const raw: string[] = [];
let gw: TestGateway;
let anthropic: Anthropic;

const WRONG_KEY = "sk-wrong-0123456789abcdef";

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  gw = await startTestGateway({ file: { server: { body_limit_bytes: 4096 } }, overrides: { logger: pino({ level: "info" }, sink) } });
  anthropic = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => gw.close());

const hello = { model: "simulator/small", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };

/** The id a failed call's reply carried (every reply has an X-Generation-Id). */
async function refusedId(pending: Promise<unknown>): Promise<string> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e as { headers?: Headers },
  );
  const id = error?.headers?.get("x-generation-id");
  expect(typeof id).toBe("string");
  return id!;
}

async function linesOf(id: string): Promise<Line[]> {
  await Bun.sleep(20);
  return raw.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === "request" && l.id === id);
}

test("each refusal has one line with status, method, path and error type; a good key's refusal names the key", async () => {
  const wrongKey = new Anthropic({ baseURL: gw.origin + "/api", apiKey: WRONG_KEY, maxRetries: 0 });
  const tooDeep = new Anthropic({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  const openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: WRONG_KEY, maxRetries: 0 });
  const keyPrefix = gw.inferenceKeyHash.slice(0, 8);
  const cases: Array<[() => Promise<unknown>, Record<string, unknown>]> = [
    [() => wrongKey.messages.create(hello), { status: 401, method: "POST", path: "/api/v1/messages", error_type: "authentication" }],
    [() => wrongKey.messages.countTokens(hello), { status: 401, path: "/api/v1/messages/count_tokens", error_type: "authentication" }],
    [() => openai.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] }), { status: 401, path: "/api/v1/chat/completions" }],
    [() => tooDeep.messages.create(hello), { status: 404, path: "/api/v1/v1/messages", error_type: "not_found" }],
    [() => anthropic.messages.create({ ...hello, max_tokens: -5 }), { status: 400, path: "/api/v1/messages", error_type: "invalid_request", key: keyPrefix }],
    [() => anthropic.messages.create({ ...hello, messages: [{ role: "user", content: "x".repeat(5000) }] }), { status: 413, error_type: "payload_too_large" }],
    [() => anthropic.models.retrieve("acme/nothing"), { status: 404, method: "GET", path: "/api/v1/models/acme%2Fnothing", error_type: "not_found" }],
  ];
  for (const [call, expected] of cases) {
    const found = await linesOf(await refusedId(call()));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject(expected);
    expect(typeof found[0]!.latency_ms).toBe("number");
  }
  // A refusal before the key was checked names no key.
  expect((await linesOf(await refusedId(wrongKey.messages.create(hello))))[0]!.key).toBeUndefined();
});

test("no line holds a key, good or wrong, nor a secret sent in the query string", async () => {
  const res = await gw.request("/v1/messages?api_key=sk-query-secret-42", { method: "POST", json: hello });
  expect(res.status).toBe(404);
  expect(await linesOf(res.headers.get("x-generation-id")!)).toMatchObject([{ status: 404, path: "/api/v1/v1/messages" }]);
  const all = raw.join("\n");
  expect(all).not.toContain(WRONG_KEY);
  expect(all).not.toContain(gw.inferenceKey);
  expect(all).not.toContain("sk-query-secret-42");
});
