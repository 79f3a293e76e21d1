/**
 * Batch routes at their limits: list `limit` (1 to 100), `custom_id` length (1 to 512), unknown cursors and ids, and
 * U+0000 in stored text, each answered with a 4xx envelope rather than a 500. Runs on SQLite, and on Postgres too
 * when DATABASE_URL=postgres://… is set (batches run no worker here: the routes are what is tested).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { BACKENDS, expectError } from "../support/envelope.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../support/pg-schema.ts";

const chat = { model: "simulator/small", messages: [{ role: "user", content: "hi" }] };
const submission = (requests: Array<{ custom_id: string; body: Record<string, unknown> }>, extra: Record<string, unknown> = {}) => ({
  endpoint: "/chat/completions",
  requests,
  ...extra,
});
for (const [backend, enabled] of BACKENDS) {
  describe.skipIf(!enabled)(`batch routes at their limits (${backend})`, () => {
    let gw: TestGateway;
    let schema: TempSchema | undefined;
    beforeAll(async () => {
      if (backend === "postgres") schema = await createTempSchema(POSTGRES_URL!);
      gw = await startTestGateway({ file: { batches: { worker: false } }, ...(schema ? { env: { DATABASE_URL: schema.url } } : {}) });
    });
    afterAll(async () => {
      await gw.close();
      await schema?.drop();
    });

    const submit = (json: unknown) => gw.request("/batches", { method: "POST", json });

    test("custom_id: 1 and 512 characters accepted, 0 and 513 rejected naming the request", async () => {
      expect((await submit(submission([{ custom_id: "c", body: chat }, { custom_id: "x".repeat(512), body: chat }]))).status).toBe(202);
      await expectError(await submit(submission([{ custom_id: "x".repeat(513), body: chat }])), 400, "requests.0.custom_id");
      await expectError(await submit(submission([{ custom_id: "", body: chat }])), 400, "requests.0.custom_id");
    });

    test("U+0000 in a custom_id, a body model or the batch model is a 400 listing the request, not a 500", async () => {
      const bad = await expectError(await submit(submission([{ custom_id: "ok", body: chat }, { custom_id: "a\u0000", body: chat }])), 400);
      expect(bad.error.metadata.errors?.map((e) => e.index)).toEqual([1]);
      const model = await expectError(await submit(submission([{ custom_id: "m", body: { ...chat, model: "simulator/small\u0000" } }])), 400);
      expect(model.error.metadata.errors?.[0]?.message).toContain("model");
      await expectError(await submit(submission([{ custom_id: "b", body: { messages: chat.messages } }], { model: "x\u0000" })), 400, "model");
    });

    test("a request that names no model (in its body, the batch or a preset) is refused at submission, listed", async () => {
      const bad = await expectError(await submit(submission([{ custom_id: "ok", body: chat }, { custom_id: "none", body: { messages: chat.messages } }])), 400);
      expect(bad.error.metadata.errors?.map((e) => e.index)).toEqual([1]);
      expect(bad.error.metadata.errors?.[0]?.message).toContain("model is required");
      expect((await submit(submission([{ custom_id: "batch-model", body: { messages: chat.messages } }], { model: "simulator/small" }))).status).toBe(202);
    });

    test("an out-of-range field in a body is reported with its real cause, as the live endpoint does", async () => {
      expect((await submit(submission([{ custom_id: "t2", body: { ...chat, temperature: 2 } }]))).status).toBe(202);
      const bad = await expectError(await submit(submission([{ custom_id: "t", body: { ...chat, temperature: 2.01 } }])), 400);
      expect(bad.error.metadata.errors?.[0]?.message).toBe("temperature: Expected number to be less or equal to 2");
    });

    test("GET /batches limit: 1 and 100 accepted; 0, 101, a fraction and text are 400 naming limit", async () => {
      for (const ok of ["1", "100"]) expect((await gw.request(`/batches?limit=${ok}`)).status).toBe(200);
      for (const bad of ["0", "101", "1.5", "abc", "-1", ""]) await expectError(await gw.request(`/batches?limit=${bad}`), 400, "limit");
    });

    test("after: an unknown id, an empty one and one holding U+0000 are 400 naming after", async () => {
      for (const bad of ["batch_unknown", "", "a%00b", "%F0%9F%98%80"]) await expectError(await gw.request(`/batches?after=${bad}`), 400, "after");
    });

    test("unknown ids and ids holding U+0000 are 404 on get, cancel and delete", async () => {
      for (const id of ["batch_unknown", "a%00b"]) {
        await expectError(await gw.request(`/batches/${id}`), 404);
        await expectError(await gw.request(`/batches/${id}/cancel`, { method: "POST" }), 404);
        await expectError(await gw.request(`/batches/${id}`, { method: "DELETE" }), 404);
      }
    });
  });
}
