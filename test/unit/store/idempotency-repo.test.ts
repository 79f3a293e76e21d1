/** The stored replies of idempotent requests on both dialects: expired ones are never read, the sweep deletes them. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../../core/store/connect.ts";
import type { IdempotentReply, Store } from "../../../core/store/types.ts";
import { createTempSchema, logPostgresSkip, POSTGRES_URL, type TempSchema } from "../../support/pg-schema.ts";

logPostgresSkip();

const reply = (id: string, createdAt: number, body = "{}"): IdempotentReply => ({
  id,
  bodyDigest: "d1",
  status: 200,
  headers: { "content-type": "application/json", "x-generation-id": "gen-1" },
  body,
  createdAt,
  expiresAt: createdAt + 1000,
});

function suite(name: string, open: () => Promise<{ store: Store; close(): Promise<void> }>, enabled = true) {
  describe.skipIf(!enabled)(name, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => ({ store, close } = await open()));
    afterAll(async () => close?.());

    test("a stored reply reads back whole until it expires", async () => {
      const stored = reply("r1", 10_000, "data: a\n\ndata: [DONE]\n\n");
      await store.idempotency.put(stored);
      expect(await store.idempotency.get("r1", 10_500)).toEqual(stored);
      expect(await store.idempotency.get("r1", 11_000)).toBeUndefined();
      expect(await store.idempotency.get("missing", 0)).toBeUndefined();
    });

    test("a reply under an expired one's id replaces it", async () => {
      await store.idempotency.put(reply("r2", 20_000, "old"));
      await store.idempotency.put({ ...reply("r2", 30_000, "new"), bodyDigest: "d2" });
      expect(await store.idempotency.get("r2", 30_001)).toMatchObject({ body: "new", bodyDigest: "d2", createdAt: 30_000 });
    });

    test("the sweep deletes expired replies only", async () => {
      await store.idempotency.put(reply("old", 40_000));
      await store.idempotency.put(reply("live", 45_000));
      expect(await store.idempotency.sweep(45_500)).toBeGreaterThanOrEqual(1);
      expect(await store.idempotency.get("live", 45_500)).toBeDefined();
      expect(await store.idempotency.get("old", 0)).toBeUndefined();
    });
  });
}

suite("sqlite", async () => {
  const store = await openStore("sqlite://:memory:");
  return { store, close: () => store.close() };
});

let schema: TempSchema | undefined;
suite(
  "postgres",
  async () => {
    schema = await createTempSchema(POSTGRES_URL!);
    const store = await openStore(schema.url);
    return { store, close: async () => (await store.close(), await schema?.drop()) };
  },
  POSTGRES_URL !== undefined,
);
