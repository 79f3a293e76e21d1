/**
 * Idempotent chat completions through HTTP with the official `openai` client: a retry with the same
 * `Idempotency-Key` and body gets the first reply — finished, running, streamed or not — and is billed once; the same
 * key with another body is a 409; failures are not kept.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY, type TestGateway } from "../../support/gateway.ts";
import { ANSWER, COMPLETION_TOKENS, PROMPT_TOKENS, startCountingUpstream, untilReceived, type CountingUpstream } from "./counting-upstream.ts";
import { billedGenerations, keyUsage, MODEL, PRICING, startIdempotencyGateway } from "./setup.ts";

let upstream: CountingUpstream;
let gw: TestGateway;
let client: OpenAI;
let run = 0;

const COST = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;
const body = (content = "hello") => ({ model: MODEL, messages: [{ role: "user" as const, content }] });
/** A key no other test uses. */
const freshKey = () => `idem-${Date.now()}-${++run}`;
const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

beforeAll(async () => {
  upstream = startCountingUpstream();
  gw = await startIdempotencyGateway(upstream.baseUrl);
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

beforeEach(() => upstream.reset());

/** The raw reply of a chat request sent with fetch (headers and exact bytes). */
const post = (key: string | null, json: unknown, apiKey?: string) =>
  gw.request("/chat/completions", { method: "POST", json, ...(apiKey ? { key: apiKey } : {}), headers: key === null ? {} : { "idempotency-key": key } });

describe("a finished request", () => {
  test("a retry gets the identical reply, with no upstream call and no second charge", async () => {
    const key = freshKey();
    const generationsBefore = await billedGenerations(gw);
    const usageBefore = await keyUsage(gw);
    const first = await client.chat.completions.create(body(), withKey(key)).withResponse();
    const second = await client.chat.completions.create(body(), withKey(key)).withResponse();
    expect(first.data.choices[0]!.message.content).toBe(ANSWER);
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get("x-generation-id")).toBe(first.response.headers.get("x-generation-id"));
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();
    expect(second.response.headers.get("idempotent-replayed")).toBe("true");
    expect(upstream.bodies).toHaveLength(1);
    expect(await billedGenerations(gw)).toBe(generationsBefore + 1);
    expect(await keyUsage(gw)).toBeCloseTo(usageBefore + COST, 12);
  });

  test("the client's own idempotencyKey option sends no header (the README says to pass it in headers): both calls run", async () => {
    const key = freshKey();
    await client.chat.completions.create(body(), { idempotencyKey: key });
    const second = await client.chat.completions.create(body(), { idempotencyKey: key }).withResponse();
    expect(second.response.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.bodies).toHaveLength(2);
  });

  test("the same key with another body is a 409 precondition_failed, and runs nothing", async () => {
    const key = freshKey();
    await client.chat.completions.create(body("first"), withKey(key));
    const error = (await client.chat.completions.create(body("second"), withKey(key)).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.ConflictError);
    expect(error.status).toBe(409);
    // The envelope: `code` is the status, `metadata.error_type` the canonical type.
    expect((error.error as { metadata: Record<string, unknown> }).metadata).toMatchObject({ error_type: "precondition_failed", param: "Idempotency-Key" });
    expect(error.message).toContain("Idempotency-Key");
    expect(upstream.bodies).toHaveLength(1);
  });

  test("the same body with different bytes (spacing) is another body", async () => {
    const key = freshKey();
    const json = body();
    expect((await gw.request("/chat/completions", { method: "POST", body: JSON.stringify(json), headers: { "idempotency-key": key, "content-type": "application/json" } })).status).toBe(200);
    const spaced = await gw.request("/chat/completions", { method: "POST", body: JSON.stringify(json, null, 2), headers: { "idempotency-key": key, "content-type": "application/json" } });
    expect(spaced.status).toBe(409);
  });

  test("keys belong to one API key: another API key with the same key runs its own request", async () => {
    const key = freshKey();
    const created = (await (await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "other" } })).json()) as { key: string };
    const a = await post(key, body());
    const b = await post(key, body(), created.key);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.headers.get("x-generation-id")).not.toBe(a.headers.get("x-generation-id"));
    expect(upstream.bodies).toHaveLength(2);
  });

  test("requests without the header are never replayed", async () => {
    await client.chat.completions.create(body());
    await client.chat.completions.create(body());
    expect(upstream.bodies).toHaveLength(2);
  });
});

describe("a running request", () => {
  test("concurrent duplicates join the first: one upstream call, one charge, the same reply for all", async () => {
    upstream.delayMs = 300;
    const key = freshKey();
    const generationsBefore = await billedGenerations(gw);
    const replies = await Promise.all([0, 1, 2].map(() => client.chat.completions.create(body(), withKey(key))));
    expect(upstream.bodies).toHaveLength(1);
    expect(replies[1]).toEqual(replies[0]!);
    expect(replies[2]).toEqual(replies[0]!);
    expect(await billedGenerations(gw)).toBe(generationsBefore + 1);
  });

  test("a first client that disconnects does not stop the run: its retry receives the result, billed once", async () => {
    upstream.delayMs = 300;
    const key = freshKey();
    const generationsBefore = await billedGenerations(gw);
    const gone = new AbortController();
    const first = client.chat.completions.create(body(), { ...withKey(key), signal: gone.signal }).catch((e: unknown) => e);
    await untilReceived(upstream);
    gone.abort();
    expect(await first).toBeInstanceOf(Error);
    const retry = await client.chat.completions.create(body(), withKey(key)).withResponse();
    expect(retry.data.choices[0]!.message.content).toBe(ANSWER);
    expect(retry.response.headers.get("idempotent-replayed")).toBe("true");
    expect(upstream.bodies).toHaveLength(1);
    expect(await billedGenerations(gw)).toBe(generationsBefore + 1);
  });
});

describe("streams", () => {
  test("a retry of a finished stream gets the same events", async () => {
    const key = freshKey();
    const first = await post(key, { ...body(), stream: true });
    const firstText = await first.text();
    const second = await post(key, { ...body(), stream: true });
    expect(second.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await second.text()).toBe(firstText);
    expect(firstText).toContain("[DONE]");
    expect(upstream.bodies).toHaveLength(1);
    // The official client reads the replay as a stream like any other.
    const replay = await client.chat.completions.create({ ...body(), stream: true }, withKey(key));
    let text = "";
    for await (const chunk of replay) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(ANSWER);
    expect(upstream.bodies).toHaveLength(1);
  });

  test("a retry joining a running stream gets the events so far, then the rest live", async () => {
    upstream.chunkDelayMs = 80;
    const key = freshKey();
    const generationsBefore = await billedGenerations(gw);
    const first = await post(key, { ...body(), stream: true });
    const reader = first.body!.getReader();
    const decoder = new TextDecoder();
    let firstText = decoder.decode((await reader.read()).value);
    // The first client has events; the retry starts now, while the stream still runs.
    const joined = await post(key, { ...body(), stream: true });
    expect(joined.headers.get("idempotent-replayed")).toBe("true");
    const joinedText = joined.text();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstText += decoder.decode(value);
    }
    expect(await joinedText).toBe(firstText);
    expect(firstText).toContain("five");
    expect(upstream.bodies).toHaveLength(1);
    expect(await billedGenerations(gw)).toBe(generationsBefore + 1);
  });
});

describe("a streaming first client that disconnects", () => {
  test("does not stop the stream: the retry gets all of it, from one upstream call", async () => {
    upstream.chunkDelayMs = 60;
    const key = freshKey();
    const gone = new AbortController();
    const first = await gw.request("/chat/completions", { method: "POST", json: { ...body(), stream: true }, headers: { "idempotency-key": key }, signal: gone.signal });
    await first.body!.getReader().read();
    gone.abort();
    const retry = await post(key, { ...body(), stream: true });
    const text = await retry.text();
    expect(text).toContain("five");
    expect(text).toContain("[DONE]");
    expect(upstream.bodies).toHaveLength(1);
  });

  test("before its first event does not stop it either: the retry gets all of it, from one upstream call", async () => {
    // Its reply comes after the client left: the stream is never pulled, the recording reads it for the retry.
    upstream.delayMs = 300;
    const key = freshKey();
    const gone = new AbortController();
    const first = gw.request("/chat/completions", { method: "POST", json: { ...body(), stream: true }, headers: { "idempotency-key": key }, signal: gone.signal }).catch((e: unknown) => e);
    await untilReceived(upstream);
    gone.abort();
    expect(await first).toBeInstanceOf(Error);
    const retry = await post(key, { ...body(), stream: true });
    const text = await retry.text();
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(text).toContain("five");
    expect(text).toContain("[DONE]");
    expect(upstream.bodies).toHaveLength(1);
  });
});

describe("failures are not kept", () => {
  test("a stream that broke off midway is not kept: the retry runs again", async () => {
    upstream.brokenStreams = 1;
    const key = freshKey();
    const broken = await (await post(key, { ...body(), stream: true })).text();
    expect(broken).not.toContain("five");
    const retried = await post(key, { ...body(), stream: true });
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await retried.text()).toContain("five");
    expect(upstream.bodies).toHaveLength(2);
  });

  test("an upstream failure releases the key: the retry runs again and succeeds", async () => {
    upstream.failures = 1;
    const key = freshKey();
    const failed = await post(key, body());
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const retried = await post(key, body());
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.bodies).toHaveLength(2);
  });

  test("a validation error is not kept either: the corrected retry with the same key runs", async () => {
    const key = freshKey();
    expect((await post(key, { model: MODEL, messages: "not a list" })).status).toBe(400);
    // Another body under the same key is accepted: nothing was kept for the invalid one.
    expect((await post(key, body())).status).toBe(200);
    expect(upstream.bodies).toHaveLength(1);
  });
});

describe("the header", () => {
  test.each([
    ["empty", ""],
    ["longer than 255 characters", "k".repeat(256)],
    ["not printable ASCII", "clé-1"],
  ])("%s: 400 naming the header, and nothing runs", async (_, key) => {
    const reply = await post(key, body());
    expect(reply.status).toBe(400);
    const error = ((await reply.json()) as { error: { code: string; message: string; metadata?: Record<string, unknown> } }).error;
    expect(error.message).toContain("Idempotency-Key");
    expect(error.metadata?.param).toBe("Idempotency-Key");
    expect(upstream.bodies).toHaveLength(0);
  });

  test("the OpenAPI docs list it on the four routes that take it", async () => {
    const doc = (await (await fetch(`${gw.origin}/docs/json`)).json()) as { paths: Record<string, { post?: { parameters?: Array<{ in: string; name: string }> } }> };
    for (const path of ["/chat/completions", "/responses", "/messages", "/batches"]) {
      expect(doc.paths[`/api/v1${path}`]?.post?.parameters).toContainEqual(expect.objectContaining({ in: "header", name: "Idempotency-Key" }));
    }
  });

  test("255 printable characters are accepted", async () => {
    expect((await post("k ~".repeat(85), body())).status).toBe(200);
  });
});
