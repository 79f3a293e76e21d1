/**
 * Preset routes at their limits: slug length, page parameters and version numbers are accepted at the limit and a
 * 400 naming the parameter one past it; fractions, huge numbers and U+0000 never reach the database as a 500.
 * Runs on SQLite, and on Postgres too when DATABASE_URL=postgres://… is set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { BACKENDS, expectError } from "../support/envelope.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../support/pg-schema.ts";

const chatBody = { model: "simulator/small", temperature: 0.5, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }] };
for (const [backend, enabled] of BACKENDS) {
  describe.skipIf(!enabled)(`preset routes at their limits (${backend})`, () => {
    let gw: TestGateway;
    let schema: TempSchema | undefined;
    beforeAll(async () => {
      if (backend === "postgres") schema = await createTempSchema(POSTGRES_URL!);
      gw = await startTestGateway(schema ? { env: { DATABASE_URL: schema.url } } : {});
      const made = await gw.request("/presets/base/chat/completions", { method: "POST", key: ADMIN_KEY, json: chatBody });
      expect(made.status).toBe(200);
    });
    afterAll(async () => {
      await gw.close();
      await schema?.drop();
    });

    const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => gw.request(path, { ...init, key: ADMIN_KEY });

    test("slug: 128 characters accepted, 129 rejected (create, read, delete)", async () => {
      const ok = "s".repeat(128);
      expect((await admin(`/presets/${ok}/chat/completions`, { method: "POST", json: chatBody })).status).toBe(200);
      expect((await admin(`/presets/${ok}`)).status).toBe(200);
      const long = "s".repeat(129);
      await expectError(await admin(`/presets/${long}/chat/completions`, { method: "POST", json: chatBody }), 400, "slug");
      await expectError(await admin(`/presets/${long}`), 400, "slug");
      await expectError(await admin(`/presets/${long}`, { method: "DELETE" }), 400, "slug");
    });

    test("GET /presets limit: 1 and 100 accepted; 0, 101, a fraction and text are 400 naming limit", async () => {
      for (const ok of ["1", "100"]) expect((await admin(`/presets?limit=${ok}`)).status).toBe(200);
      for (const bad of ["0", "101", "1.5", "abc", "-1", "1e2"]) await expectError(await admin(`/presets?limit=${bad}`), 400, "limit");
    });

    test("GET /presets offset: 0 and 2^53-1 accepted; a fraction and 2^53 are 400 naming offset", async () => {
      const page = (await (await admin(`/presets?offset=${Number.MAX_SAFE_INTEGER}`)).json()) as { data: unknown[]; total_count: number };
      expect(page.data).toEqual([]);
      expect(page.total_count).toBeGreaterThan(0);
      for (const bad of ["1.5", "9007199254740992", "1e30", "-1"]) await expectError(await admin(`/presets?offset=${bad}`), 400, "offset");
    });

    test("GET /presets/{slug}/versions takes the same page parameters", async () => {
      expect((await admin("/presets/base/versions?limit=100&offset=0")).status).toBe(200);
      await expectError(await admin("/presets/base/versions?limit=101"), 400, "limit");
      await expectError(await admin("/presets/base/versions?limit=2.5"), 400, "limit");
      await expectError(await admin("/presets/base/versions?offset=1e30"), 400, "offset");
    });

    test("version numbers: 999999999 is a 404 (missing), 1000000000, 0 and text are 400", async () => {
      expect((await admin("/presets/base/versions/1")).status).toBe(200);
      await expectError(await admin("/presets/base/versions/999999999"), 404);
      for (const bad of ["1000000000", "0", "abc", "1.0"]) await expectError(await admin(`/presets/base/versions/${bad}`), 400, "version");
    });

    test("a system prompt holding U+0000 is a 400 naming its field in every format", async () => {
      const chat = { ...chatBody, messages: [{ role: "system", content: "a\u0000b" }, { role: "user", content: "hi" }] };
      await expectError(await admin("/presets/nul/chat/completions", { method: "POST", json: chat }), 400, "messages");
      const messages = { model: "simulator/small", max_tokens: 5, system: "a\u0000b", messages: [{ role: "user", content: "hi" }] };
      await expectError(await admin("/presets/nul/messages", { method: "POST", json: messages }), 400, "system");
      await expectError(await admin("/presets/nul/responses", { method: "POST", json: { model: "simulator/small", input: "hi", instructions: "a\u0000b" } }), 400, "instructions");
      await expectError(await admin("/presets/nul"), 404);
    });
  });
}
