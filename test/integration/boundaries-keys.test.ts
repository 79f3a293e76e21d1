/**
 * Key management and account routes at their limits: the value at a limit is accepted, one past it is a 400 with the
 * envelope naming the parameter, and malformed input (fractions, huge numbers, U+0000) never reaches the database as
 * a 500. Runs on SQLite, and on Postgres too when DATABASE_URL=postgres://… is set (Postgres refuses U+0000 in text
 * and has 32-bit `integer` columns, which is where these inputs used to turn into 500s).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { BACKENDS, expectError } from "../support/envelope.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../support/pg-schema.ts";

for (const [backend, enabled] of BACKENDS) {
  describe.skipIf(!enabled)(`key routes at their limits (${backend})`, () => {
    let gw: TestGateway;
    let schema: TempSchema | undefined;
    beforeAll(async () => {
      if (backend === "postgres") schema = await createTempSchema(POSTGRES_URL!);
      gw = await startTestGateway(schema ? { env: { DATABASE_URL: schema.url } } : {});
    });
    afterAll(async () => {
      await gw.close();
      await schema?.drop();
    });

    const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => gw.request(path, { ...init, key: ADMIN_KEY });
    const create = (json: Record<string, unknown>) => admin("/keys", { method: "POST", json: { name: "k", ...json } });

    test("GET /keys offset: 0 and 2^53-1 accepted; a fraction, 2^53, a negative number and text are 400 naming offset", async () => {
      expect((await admin("/keys?offset=0")).status).toBe(200);
      const last = await admin(`/keys?offset=${Number.MAX_SAFE_INTEGER}`);
      expect(last.status).toBe(200);
      expect(await last.json()).toEqual({ data: [] });
      for (const bad of ["1.5", "9007199254740992", "1e30", "-1", "abc", ""]) {
        await expectError(await admin(`/keys?offset=${bad}`), 400, "offset");
      }
    });

    test("name: 256 characters accepted, 257 rejected; U+0000 is a 400, not a database error", async () => {
      expect((await create({ name: "n".repeat(256) })).status).toBe(201);
      await expectError(await create({ name: "n".repeat(257) }), 400, "name");
      await expectError(await create({ name: "" }), 400, "name");
      await expectError(await create({ name: "a\u0000b" }), 400, "name");
      const created = (await (await create({})).json()) as { data: { hash: string } };
      await expectError(await admin(`/keys/${created.data.hash}`, { method: "PATCH", json: { name: "a\u0000b" } }), 400, "name");
    });

    test("rate_limit counts: 2147483647 accepted (and kept), 2147483648 rejected, on create and on update", async () => {
      const max = 2_147_483_647;
      const created = await create({ rate_limit: { requests: max, tokens: max, interval_seconds: 86_400 } });
      expect(created.status).toBe(201);
      const { data } = (await created.json()) as { data: { hash: string } };
      const read = await admin(`/keys/${data.hash}`);
      expect(read.status).toBe(200);
      for (const field of ["requests", "tokens"]) {
        await expectError(await create({ rate_limit: { [field]: max + 1 } }), 400, `rate_limit.${field}`);
        await expectError(await create({ rate_limit: { [field]: 0 } }), 400, `rate_limit.${field}`);
        await expectError(await create({ rate_limit: { [field]: 1.5 } }), 400, `rate_limit.${field}`);
        await expectError(await admin(`/keys/${data.hash}`, { method: "PATCH", json: { rate_limit: { [field]: 1e300 } } }), 400, `rate_limit.${field}`);
      }
      await expectError(await create({ rate_limit: { interval_seconds: 86_401 } }), 400, "rate_limit.interval_seconds");
      await expectError(await create({ rate_limit: { interval_seconds: 0 } }), 400, "rate_limit.interval_seconds");
    });

    test("limit: 0 accepted, a negative amount and a string rejected", async () => {
      expect((await create({ limit: 0 })).status).toBe(201);
      await expectError(await create({ limit: -0.01 }), 400, "limit");
      await expectError(await create({ limit: "5" }), 400, "limit");
    });

    test("expires_at: ISO 8601 dates and date-times accepted; other strings Date.parse would take are 400", async () => {
      const future = new Date(Date.now() + 86_400_000);
      for (const ok of [future.toISOString(), future.toISOString().slice(0, 19) + "+02:00", "2999-01-01"]) {
        expect((await create({ expires_at: ok })).status).toBe(201);
      }
      for (const bad of ["March 7 2999", "0", "2999", "2999-01-01 10:00", "2999-01-01T10:00:00"]) {
        await expectError(await create({ expires_at: bad }), 400, "expires_at");
      }
    });

    test("ids holding U+0000 are 404s, not database errors", async () => {
      await expectError(await admin("/keys/a%00b"), 404);
      await expectError(await admin("/keys/a%00b", { method: "PATCH", json: { disabled: true } }), 404);
      await expectError(await admin("/keys/a%00b", { method: "DELETE" }), 404);
      await expectError(await gw.request("/generation?id=a%00b"), 404);
    });
  });
}
