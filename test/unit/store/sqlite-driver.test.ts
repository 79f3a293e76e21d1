/** The bun:sqlite kysely driver: result shapes, serialized transactions, savepoints, pragmas. */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql, type Generated } from "kysely";
import { BunSqliteDialect } from "../../../core/store/sqlite-driver.ts";

interface TestDb {
  counter: { id: number; n: number };
  items: { id: Generated<number>; name: string; flag: number | null };
}

const dir = mkdtempSync(join(tmpdir(), "gw-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("BunSqliteDialect", () => {
  let db: Kysely<TestDb>;

  beforeEach(async () => {
    db = new Kysely<TestDb>({ dialect: new BunSqliteDialect({ path: ":memory:" }) });
    await db.schema.createTable("counter").addColumn("id", "integer", (c) => c.primaryKey()).addColumn("n", "integer").execute();
    await db.schema
      .createTable("items")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("name", "text")
      .addColumn("flag", "integer")
      .execute();
    await db.insertInto("counter").values({ id: 1, n: 0 }).execute();
  });
  afterEach(async () => {
    await db.destroy();
  });

  test("inserts report affected rows and the insert id; selects and RETURNING give rows", async () => {
    const inserted = await db.insertInto("items").values([{ name: "a" }, { name: "b" }]).executeTakeFirst();
    expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
    expect(inserted.insertId).toBe(2n);
    const returned = await db.insertInto("items").values({ name: "c" }).returning(["id", "name"]).execute();
    expect(returned).toEqual([{ id: 3, name: "c" }]);
    const updated = await db.updateTable("items").set({ name: "z" }).where("id", "<", 3).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    expect(await db.selectFrom("items").select("name").orderBy("id").execute()).toEqual([
      { name: "z" },
      { name: "z" },
      { name: "c" },
    ]);
  });

  test("binds booleans as 0/1 and Dates as unix ms", async () => {
    await sql`insert into items (name, flag) values (${"t"}, ${true}), (${"d"}, ${new Date(1234)})`.execute(db);
    expect(await db.selectFrom("items").select(["name", "flag"]).orderBy("id").execute()).toEqual([
      { name: "t", flag: 1 },
      { name: "d", flag: 1234 },
    ]);
  });

  test("concurrent transactions serialize: read-modify-write across awaits loses no update", async () => {
    await Promise.all(
      Array.from({ length: 10 }, () =>
        db.transaction().execute(async (trx) => {
          const { n } = await trx.selectFrom("counter").select("n").where("id", "=", 1).executeTakeFirstOrThrow();
          await Bun.sleep(1); // yield: another transaction would interleave here without the mutex
          await trx.updateTable("counter").set({ n: n + 1 }).where("id", "=", 1).execute();
        }),
      ),
    );
    expect((await db.selectFrom("counter").select("n").executeTakeFirstOrThrow()).n).toBe(10);
  });

  test("a failing transaction rolls back and releases the connection", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ name: "doomed" }).execute();
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await db.selectFrom("items").selectAll().execute()).toEqual([]);
    await db.insertInto("items").values({ name: "after" }).execute();
    expect(await db.selectFrom("items").select("name").execute()).toEqual([{ name: "after" }]);
  });

  test("savepoints roll back part of a transaction", async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto("items").values({ name: "kept" }).execute();
    const sp = await trx.savepoint("before-doomed").execute();
    await sp.insertInto("items").values({ name: "doomed" }).execute();
    const back = await sp.rollbackToSavepoint("before-doomed").execute();
    await back.commit().execute();
    expect(await db.selectFrom("items").select("name").execute()).toEqual([{ name: "kept" }]);
  });

  test("streaming is refused with a clear error", async () => {
    const iterate = async () => {
      for await (const _row of db.selectFrom("items").selectAll().stream()) {
        // never reached
      }
    };
    await expect(iterate()).rejects.toThrow(/not supported/);
  });
});

describe("BunSqliteDialect on a file", () => {
  test("enables WAL and a busy timeout", async () => {
    const db = new Kysely<TestDb>({ dialect: new BunSqliteDialect({ path: join(dir, "wal.db") }) });
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    const timeout = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect(mode.rows[0]?.journal_mode).toBe("wal");
    expect(timeout.rows[0]?.timeout).toBeGreaterThan(0);
    await db.destroy();
  });
});
