/** Idempotent batch submission: a retried `POST /batches` returns the first batch, not a second. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestGateway } from "../../support/gateway.ts";
import { startCountingUpstream, type CountingUpstream } from "./counting-upstream.ts";
import { MODEL, startIdempotencyGateway } from "./setup.ts";

let upstream: CountingUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startCountingUpstream();
  gw = await startIdempotencyGateway(upstream.baseUrl);
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const submission = (content: string) => ({
  endpoint: "/v1/chat/completions",
  model: MODEL,
  requests: [{ custom_id: "a", body: { messages: [{ role: "user", content }] } }],
});
const submit = (key: string, json: unknown) => gw.request("/batches", { method: "POST", json, headers: { "idempotency-key": key } });
const batchIds = async () => ((await (await gw.request("/batches?limit=100")).json()) as { data: Array<{ id: string }> }).data.map((b) => b.id);

test("a retried submission returns the same batch id, and only one batch exists", async () => {
  const before = await batchIds();
  const first = await submit("batch-1", submission("hello"));
  const second = await submit("batch-1", submission("hello"));
  expect(first.status).toBe(202);
  expect(second.status).toBe(202);
  expect(second.headers.get("idempotent-replayed")).toBe("true");
  const a = (await first.json()) as { id: string };
  const b = (await second.json()) as { id: string };
  expect(b.id).toBe(a.id);
  expect((await batchIds()).filter((id) => !before.includes(id))).toEqual([a.id]);
});

test("the same key with another submission is a 409, and creates no batch", async () => {
  await submit("batch-2", submission("hello"));
  const before = await batchIds();
  const conflict = await submit("batch-2", submission("something else"));
  expect(conflict.status).toBe(409);
  expect(((await conflict.json()) as { error: { metadata: Record<string, unknown> } }).error.metadata.error_type).toBe("precondition_failed");
  expect(await batchIds()).toEqual(before);
});

test("a submission without the header is never replayed", async () => {
  const before = await batchIds();
  const json = { ...submission("plain"), requests: [{ custom_id: "a", body: { messages: [{ role: "user", content: "plain" }] } }] };
  await gw.request("/batches", { method: "POST", json });
  await gw.request("/batches", { method: "POST", json });
  expect((await batchIds()).filter((id) => !before.includes(id))).toHaveLength(2);
});

test("a malformed key is refused with a 400 naming the header", async () => {
  const reply = await submit("x".repeat(300), submission("hello"));
  expect(reply.status).toBe(400);
  expect(((await reply.json()) as { error: { message: string } }).error.message).toContain("Idempotency-Key");
});
