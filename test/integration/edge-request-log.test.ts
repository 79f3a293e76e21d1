/**
 * Every answer gets one request log line, the edge's own refusals and 500s included, and every 500 an error line
 * with its cause. Inference requests keep their one richer line from the pipeline. An error
 * answer's line says why (`error_message`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import pino from "pino";
import { Writable } from "node:stream";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawHttp } from "../support/raw-http.ts";

type Line = Record<string, unknown> & { msg: string };
const lines: Line[] = [];
let gw: TestGateway;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  gw = await startTestGateway({ file: { server: { body_limit_bytes: 4096 } }, overrides: { logger: pino({ level: "info" }, sink) } });
});
afterAll(async () => gw.close());

/** The request lines carrying `id` (every answer has an X-Generation-Id but successes outside inference). */
async function requestLines(id: string | null): Promise<Line[]> {
  await Bun.sleep(20);
  return lines.filter((l) => l.msg === "request" && l.id === id);
}

const json = { "content-type": "application/json" };

test("each edge refusal has exactly one request line with its status, method and path", async () => {
  const cases: Array<[Promise<Response>, number]> = [
    [gw.request("/nothing-here"), 404],
    [gw.request("/chat/completions", { method: "GET" }), 405],
    [gw.request("/chat/completions", { method: "POST", body: "{oops", headers: json }), 400],
    [gw.request("/chat/completions", { method: "POST", json: { model: 5, messages: [] } }), 400],
    [gw.request("/chat/completions", { method: "POST", json: { model: "m", messages: [] }, key: null }), 401],
    [gw.request("/chat/completions", { method: "POST", body: "x".repeat(5000), headers: json }), 413],
    [gw.request("/keys"), 403],
  ];
  for (const [pending, status] of cases) {
    const res = await pending;
    expect(res.status).toBe(status);
    const found = await requestLines(res.headers.get("x-generation-id"));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ status, method: expect.any(String), path: expect.stringMatching(/^\/api\/v1\//) });
    expect(typeof found[0]!.latency_ms).toBe("number");
  }
});

test("a missing Host (refused before the app) is logged too", async () => {
  const reply = await rawHttp(Number(new URL(gw.origin).port), { send: "GET /api/v1/health HTTP/1.0\r\n\r\n", waitMs: 2000 });
  expect(reply.status).toBe(400);
  const id = /x-generation-id: (\S+)/i.exec(reply.head)?.[1] ?? null;
  expect(await requestLines(id)).toMatchObject([{ status: 400, path: "/api/v1/health" }]);
});

test("a 500 raised outside the pipeline: a request line and an error line naming the cause", async () => {
  const presets = gw.gateway.deps.store.presets;
  const list = presets.list;
  presets.list = () => Promise.reject(new Error("the disk is on fire"));
  try {
    const res = await gw.request("/presets", { key: ADMIN_KEY });
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(body).not.toContain("disk");
    const id = res.headers.get("x-generation-id");
    expect(await requestLines(id)).toMatchObject([{ status: 500, method: "GET", path: "/api/v1/presets" }]);
    const error = lines.find((l) => l.msg === "request failed" && l.id === id);
    expect((error?.err as { message?: string } | undefined)?.message).toBe("the disk is on fire");
  } finally {
    presets.list = list;
  }
});

test("successful answers outside inference get a line; an inference request keeps only its pipeline line", async () => {
  const before = lines.length;
  expect((await gw.request("/models", { key: null })).status).toBe(200);
  await Bun.sleep(20);
  expect(lines.slice(before).filter((l) => l.msg === "request" && l.path === "/api/v1/models" && l.status === 200)).toHaveLength(1);

  const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }] } });
  expect(res.status).toBe(200);
  const found = await requestLines(res.headers.get("x-generation-id"));
  expect(found).toHaveLength(1);
  expect(found[0]).toMatchObject({ status: 200, format: "chat", model: "simulator/small" });
});

describe("an error answer's line says why: the message the client got, clipped, with credentials masked", () => {
  /** The client's message and the one line of the reply. */
  async function refused(pending: Promise<Response>, status: number): Promise<{ message: string; line: Line }> {
    const res = await pending;
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { message: string } };
    const [line] = await requestLines(res.headers.get("x-generation-id"));
    return { message: body.error.message, line: line! };
  }

  test("edge refusals (404, 405, 400, 401, 413, 403) carry their error_message", async () => {
    const cases: Array<[Promise<Response>, number]> = [
      [gw.request("/nothing-here"), 404],
      [gw.request("/chat/completions", { method: "GET" }), 405],
      [gw.request("/chat/completions", { method: "POST", body: "{oops", headers: json }), 400],
      [gw.request("/chat/completions", { method: "POST", json: { model: 5, messages: [] } }), 400],
      [gw.request("/chat/completions", { method: "POST", json: { model: "m", messages: [] }, key: null }), 401],
      [gw.request("/chat/completions", { method: "POST", body: "x".repeat(5000), headers: json }), 413],
      [gw.request("/keys"), 403],
    ];
    for (const [pending, status] of cases) {
      const { message, line } = await refused(pending, status);
      expect(message.length).toBeGreaterThan(0);
      expect(line).toMatchObject({ status, error_type: expect.any(String), error_message: message });
    }
  });

  test("the pipeline's 4xx (an unknown model, a schema refusal through the official client) carry theirs too", async () => {
    const unknown = await refused(gw.request("/chat/completions", { method: "POST", json: { model: "acme/does-not-exist", messages: [{ role: "user", content: "hi" }] } }), 400);
    expect(unknown.line).toMatchObject({ format: "chat", status: 400, error_message: unknown.message });
    expect(unknown.message).toContain("acme/does-not-exist");
    const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
    const error = (await client.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "hi" }], temperature: 7 }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    const [line] = await requestLines(error.headers?.get("x-generation-id") ?? null);
    expect(line).toMatchObject({ status: 400, error_type: "invalid_request", error_message: error.error && (error.error as { message: string }).message });
    expect(String(line!.error_message)).toContain("temperature");
  });

  test("a long message is clipped to 200 characters; a key it repeats is masked", async () => {
    const long = await refused(gw.request("/chat/completions", { method: "POST", json: { model: `acme/${"m".repeat(240)}`, messages: [{ role: "user", content: "hi" }] } }), 400);
    expect(long.message.length).toBeGreaterThan(220);
    expect(String(long.line.error_message)).toBe(long.message.slice(0, 200) + "…");
    const secret = "sk-gw-v1-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    const leaky = await refused(gw.request("/chat/completions", { method: "POST", json: { model: `acme/${secret}`, messages: [{ role: "user", content: "hi" }] } }), 400);
    expect(leaky.message).toContain(secret);
    expect(String(leaky.line.error_message)).toContain("[redacted]");
    expect(JSON.stringify(leaky.line)).not.toContain(secret);
  });

  test("a success's line has no error_message", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }] } });
    expect(res.status).toBe(200);
    const [line] = await requestLines(res.headers.get("x-generation-id"));
    expect(line).toBeDefined();
    expect("error_message" in line!).toBe(false);
  });
});
