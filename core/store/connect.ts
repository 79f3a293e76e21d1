/** Opens the store named by `DATABASE_URL` (ARCHITECTURE §5): SQLite by default, Postgres for `postgres://`. */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Kysely, sql, type Dialect } from "kysely";
import type { Logger } from "pino";
import { systemClock, type StoreClock } from "./clock.ts";
import { migrateToLatest } from "./migrations.ts";
import type { StoreDatabase } from "./schema.ts";
import { BunSqliteDialect } from "./sqlite-driver.ts";
import { createStore } from "./store.ts";
import type { Store } from "./types.ts";

/** Where a `DATABASE_URL` points. */
export type DatabaseTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  logger?: Logger;
  /** Stamps created/updated times; defaults to the wall clock. */
  clock?: StoreClock;
}

/**
 * Parses `sqlite://relative/path.db`, `sqlite:///abs/path.db`, `sqlite://:memory:`, `postgres://…` and
 * `postgresql://…`. Relative SQLite paths resolve against the working directory.
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  const url = databaseUrl.trim();
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { kind: "postgres", url };
  if (url.startsWith("sqlite://")) {
    // Sliced, not parsed with URL: `sqlite://data/x.db` would make `data` a host name.
    const rest = url.slice("sqlite://".length);
    if (rest === "") throw new Error("DATABASE_URL: a sqlite:// URL needs a path, e.g. sqlite://data/gateway.db");
    if (rest === ":memory:") return { kind: "sqlite", path: ":memory:" };
    return { kind: "sqlite", path: resolve(decodeURIComponent(rest)) };
  }
  // Only the scheme is echoed: the rest of the URL may carry a password.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? "(none)";
  throw new Error(
    `DATABASE_URL: unsupported scheme ${scheme}; expected sqlite://, postgres:// or postgresql://`,
  );
}

/** Opens the database, runs pending migrations and returns the repositories. */
export async function openStore(databaseUrl: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  const clock = opts.clock ?? systemClock;
  let dialect: Dialect;
  let sqlite: BunSqliteDialect | undefined;
  if (target.kind === "sqlite") {
    if (target.path !== ":memory:") mkdirSync(dirname(target.path), { recursive: true });
    dialect = sqlite = new BunSqliteDialect({ path: target.path });
  } else {
    // Loaded only when used: the pg driver costs memory and start-up time on the embedded SQLite default.
    const { createPostgresDialect } = await import("./postgres-dialect.ts");
    dialect = createPostgresDialect(target.url, opts.logger);
  }
  const db = new Kysely<StoreDatabase>({ dialect });
  try {
    // On Postgres, pin kysely's bookkeeping tables to the schema our tables land in (the first of search_path):
    // unpinned, kysely looks for them in every schema and may find another deployment's.
    const schema = target.kind === "postgres" ? await currentSchema(db) : undefined;
    await migrateToLatest(db, target.kind, { schema, logger: opts.logger });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    // The driver's message names the host at most, never the password of the URL.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`DATABASE_URL: cannot open the ${target.kind} store (${reason})`, { cause: error });
  }
  return createStore(db, target.kind, clock, opts.logger, sqlite && (() => sqlite.database()));
}

async function currentSchema(db: Kysely<StoreDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("DATABASE_URL: the Postgres search_path names no existing schema");
  return schema;
}
