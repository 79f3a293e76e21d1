/**
 * `generations.bill` (the ledger's write): records are stored and their keys charged in one transaction, and a
 * record already stored charges nothing — so a flush retried after a write whose outcome was unknown (the connection
 * dropped during COMMIT, across a database outage) never bills twice. SQLite always; Postgres when configured.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../../core/store/connect.ts";
import type { Store } from "../../../core/store/types.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../../support/pg-schema.ts";
import { generation, newKey, unique } from "./store-suite.ts";

const backends: Array<{ label: string; skip: boolean; open(): Promise<{ a: Store; b: Store; close(): Promise<void> }> }> = [
  {
    label: "sqlite",
    skip: false,
    async open() {
      const a = await openStore("sqlite://:memory:");
      return { a, b: a, close: () => a.close() };
    },
  },
  {
    label: "postgres",
    skip: !POSTGRES_URL,
    async open() {
      const schema: TempSchema = await createTempSchema(POSTGRES_URL ?? "");
      const a = await openStore(schema.url);
      const b = await openStore(schema.url);
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()]), await schema.drop()) };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`generations.bill: ${backend.label}`, () => {
    let a: Store;
    let b: Store;
    let close: () => Promise<void>;
    beforeAll(async () => ({ a, b, close } = await backend.open()));
    afterAll(async () => close?.());

    const usageOf = async (hash: string) => (await a.keys.findByHash(hash))?.usage;

    test("stores the records and charges each key its spending; a batch sent again charges nothing", async () => {
      const ws = unique("ws");
      const [k1, k2] = [await a.keys.create(newKey(ws)), await a.keys.create(newKey(ws))];
      const records = [generation(ws, { keyHash: k1.hash, cost: 0.5 }), generation(ws, { keyHash: k1.hash, cost: 0.25 }), generation(ws, { keyHash: k2.hash, cost: 0.125 }), generation(ws, { keyHash: k2.hash, cost: 0 })];
      await a.generations.bill(records);
      expect(await usageOf(k1.hash)).toBeCloseTo(0.75, 12);
      expect(await usageOf(k2.hash)).toBeCloseTo(0.125, 12);
      // The same batch again (its first write's outcome was unknown), plus one new record: only the new one charges.
      const late = generation(ws, { keyHash: k1.hash, cost: 1 });
      await a.generations.bill([...records, late]);
      expect(await usageOf(k1.hash)).toBeCloseTo(1.75, 12);
      expect(await usageOf(k2.hash)).toBeCloseTo(0.125, 12);
      for (const record of [...records, late]) expect((await a.generations.get(record.id, ws))?.cost).toBe(record.cost);
    });

    test("a record of an unknown key is stored and charges nobody else", async () => {
      const ws = unique("ws");
      const key = await a.keys.create(newKey(ws));
      const orphan = generation(ws, { keyHash: unique("gone"), cost: 3 });
      await a.generations.bill([orphan, generation(ws, { keyHash: key.hash, cost: 0.5 })]);
      expect(await a.generations.get(orphan.id, ws)).toBeDefined();
      expect(await usageOf(key.hash)).toBeCloseTo(0.5, 12);
    });

    test("two handles billing overlapping batches at once charge every record exactly once", async () => {
      const ws = unique("ws");
      const key = await a.keys.create(newKey(ws));
      const records = Array.from({ length: 40 }, () => generation(ws, { keyHash: key.hash, cost: 0.25 }));
      await Promise.all([a.generations.bill(records.slice(0, 30)), b.generations.bill(records.slice(10)), a.generations.bill(records.slice(5, 35))]);
      expect(await usageOf(key.hash)).toBeCloseTo(10, 9);
    });
  });
}
