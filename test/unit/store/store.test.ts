/** Runs the store contract against every backend: SQLite in memory, a SQLite file, and Postgres when configured. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../../core/store/connect.ts";
import { createTempSchema, logPostgresSkip, POSTGRES_URL, type TempSchema } from "../../support/pg-schema.ts";
import { describeStore, newKey } from "./store-suite.ts";

describeStore("sqlite :memory:", "sqlite", (opts) => openStore("sqlite://:memory:", opts));

const dir = mkdtempSync(join(tmpdir(), "gw-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
describeStore("sqlite file", "sqlite", (opts) => openStore(`sqlite://${join(dir, "suite", "gateway.db")}`, opts));

logPostgresSkip();
let schema: TempSchema | undefined;
beforeAll(async () => {
  if (POSTGRES_URL) schema = await createTempSchema(POSTGRES_URL);
});
afterAll(async () => {
  await schema?.drop();
});
describeStore(
  "postgres",
  "postgres",
  (opts) => {
    if (!schema) throw new Error("temp schema not created");
    return openStore(schema.url, opts);
  },
  !POSTGRES_URL,
);

describe.skipIf(!POSTGRES_URL)("store on Postgres: several processes at once", () => {
  test("concurrent opens of a fresh schema migrate once and agree on the default workspace", async () => {
    const fresh = await createTempSchema(POSTGRES_URL ?? "");
    try {
      const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openStore(fresh.url)));
      const stores = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
      try {
        expect(opened.filter((o) => o.status === "rejected")).toEqual([]);
        const workspaces = await Promise.all(stores.map((s) => s.workspaces.ensureDefault()));
        expect(new Set(workspaces.map((w) => JSON.stringify(w))).size).toBe(1);

        const key = await stores[0]!.keys.create(newKey(workspaces[0]!.id));
        await Promise.all(
          Array.from({ length: 40 }, (_, i) => stores[i % stores.length]!.keys.addUsage([{ hash: key.hash, amount: 0.25 }])),
        );
        expect((await stores[3]!.keys.findByHash(key.hash))?.usage).toBe(10);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    } finally {
      await fresh.drop();
    }
  });

  test("numbers come back as JS numbers, not int8 strings", async () => {
    const fresh = await createTempSchema(POSTGRES_URL ?? "");
    const store = await openStore(fresh.url);
    try {
      const ws = await store.workspaces.ensureDefault();
      expect(typeof ws.createdAt).toBe("number");
      expect(typeof (await store.keys.count())).toBe("number");
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});
