/**
 * core/store/guarded-dialect.ts: every query, transaction and connection of a store passes the availability gate. An
 * unreachable database turns into the 503 and marks the store down; while down nothing waits on the driver; and on
 * SQLite (one connection behind kysely's mutex) a refused operation never leaves the connection locked.
 */
import { describe, expect, test } from "bun:test";
import { CompiledQuery, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from "kysely";
import { isGatewayError } from "../../../core/errors.ts";
import { StoreAvailability } from "../../../core/store/availability.ts";
import { GuardedDialect } from "../../../core/store/guarded-dialect.ts";
import { BunSqliteDialect } from "../../../core/store/sqlite-driver.ts";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
const is503 = (error: unknown) => isGatewayError(error) && error.status === 503;
/** A probe's answer: fine once reachable, refused before. */
const probeOf = (reachable: boolean) => {
  if (!reachable) throw refused();
};

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** A driver whose every statement fails with `state.error` while set, and counts the connections it hands out. */
function flakyDialect(state: { error: unknown; acquired: number }): Dialect {
  const connection: DatabaseConnection = {
    async executeQuery<R>(): Promise<QueryResult<R>> {
      if (state.error) throw state.error;
      return { rows: [{ one: 1 } as R] };
    },
    async *streamQuery() {},
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => {
      state.acquired++;
      return connection;
    },
    beginTransaction: async (c) => void (await c.executeQuery(CompiledQuery.raw("begin"))),
    commitTransaction: async (c) => void (await c.executeQuery(CompiledQuery.raw("commit"))),
    rollbackTransaction: async (c) => void (await c.executeQuery(CompiledQuery.raw("rollback"))),
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  return {
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}

describe("GuardedDialect", () => {
  test("an unreachable database becomes the 503 and marks the store down; later queries do not reach the driver", async () => {
    const state = { error: refused() as unknown, acquired: 0 };
    let reachable = false;
    const availability = new StoreAvailability({ probe: async () => probeOf(reachable), probeEveryMs: 5 });
    const db = new Kysely<any>({ dialect: new GuardedDialect(flakyDialect(state), availability) });
    expect(is503(await caught(sql`select 1`.execute(db)))).toBe(true);
    expect(availability.up).toBe(false);
    const acquired = state.acquired;
    const started = performance.now();
    expect(is503(await caught(sql`select 1`.execute(db)))).toBe(true);
    expect(is503(await caught(db.transaction().execute(async (trx) => sql`select 1`.execute(trx))))).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
    expect(state.acquired).toBe(acquired); // refused without touching the driver
    state.error = undefined;
    reachable = true;
    await availability.whenUp();
    expect((await sql<{ one: number }>`select 1`.execute(db)).rows).toEqual([{ one: 1 }]);
    availability.close();
    await db.destroy();
  });

  test("a fault of the query itself stays that fault and leaves the store up", async () => {
    const availability = new StoreAvailability({ probe: async () => undefined });
    const db = new Kysely<any>({ dialect: new GuardedDialect(new BunSqliteDialect({ path: ":memory:" }), availability) });
    await sql`create table t (id integer primary key)`.execute(db);
    await sql`insert into t values (1)`.execute(db);
    const error = await caught(sql`insert into t values (1)`.execute(db));
    expect(is503(error)).toBe(false);
    expect(String(error)).toContain("UNIQUE");
    expect(availability.up).toBe(true);
    await db.destroy();
  });

  test("on SQLite, refused queries, transactions and held connections never leave the one connection locked", async () => {
    let reachable = false;
    const availability = new StoreAvailability({ probe: async () => probeOf(reachable), probeEveryMs: 5 });
    const db = new Kysely<any>({ dialect: new GuardedDialect(new BunSqliteDialect({ path: ":memory:" }), availability) });
    await sql`create table t (id integer primary key)`.execute(db);
    availability.failed(refused());
    for (let i = 0; i < 3; i++) {
      expect(is503(await caught(sql`insert into t values (${i})`.execute(db)))).toBe(true);
      expect(is503(await caught(db.transaction().execute((trx) => sql`insert into t values (${i})`.execute(trx))))).toBe(true);
      expect(is503(await caught(db.connection().execute((c) => sql`select 1`.execute(c))))).toBe(true);
    }
    reachable = true;
    await availability.whenUp();
    await db.transaction().execute((trx) => sql`insert into t values (7)`.execute(trx));
    expect((await sql<{ id: number }>`select id from t`.execute(db)).rows).toEqual([{ id: 7 }]);
    availability.close();
    await db.destroy();
  });
});
