/** Opens the store named by `DATABASE_URL`: SQLite by default, Postgres for `postgres://`. */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { isGatewayError } from "../errors.ts";
import { StoreUnreachableError } from "../ops/unavailable.ts";
import { StoreAvailability } from "./availability.ts";
import { systemClock, type StoreClock } from "./clock.ts";
import { GuardedDialect } from "./guarded-dialect.ts";
import { migrateToLatest } from "./migrations.ts";
import { isUnreachable } from "./reachability.ts";
import type { StoreDatabase, StoreDialect } from "./schema.ts";
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

/**
 * Opens the database, runs pending migrations and returns the repositories. An unreachable database rejects with a
 * `StoreUnreachableError` (start-up waits and tries again), anything else with a plain error naming DATABASE_URL.
 */
export async function openStore(databaseUrl: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  const clock = opts.clock ?? systemClock;
  return target.kind === "sqlite" ? openSqlite(target.path, clock, opts.logger) : openPostgres(target.url, clock, opts.logger);
}

async function openSqlite(path: string, clock: StoreClock, logger: Logger | undefined): Promise<Store> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BunSqliteDialect({ path });
  // One handle serves and migrates (an in-memory database exists only in the handle that made it).
  const availability = new StoreAvailability({ probe: async () => void sqlite.database().query("select 1").get(), logger });
  const db = new Kysely<StoreDatabase>({ dialect: new GuardedDialect(sqlite, availability) });
  try {
    await migrateToLatest(db, "sqlite", { logger });
  } catch (error) {
    availability.close();
    await db.destroy().catch(() => undefined);
    throw openError("sqlite", error);
  }
  return createStore(db, "sqlite", clock, availability, logger, sqlite);
}

async function openPostgres(url: string, clock: StoreClock, logger: Logger | undefined): Promise<Store> {
  // Loaded only when used: the pg driver costs memory and start-up time on the embedded SQLite default.
  const { createPostgresDialect } = await import("./postgres-dialect.ts");
  // Migrations run over a pool of their own without the query time-out of request traffic (an index over a large
  // table may take minutes), closed before the serving pool opens.
  const migrating = new Kysely<StoreDatabase>({ dialect: createPostgresDialect(url, logger, 0).dialect });
  try {
    // Pin kysely's bookkeeping tables to the schema our tables land in (the first of search_path): unpinned, kysely
    // looks for them in every schema and may find another deployment's.
    const schema = await currentSchema(migrating);
    await migrateToLatest(migrating, "postgres", { schema, logger });
  } catch (error) {
    throw openError("postgres", error);
  } finally {
    await migrating.destroy().catch(() => undefined);
  }
  const postgres = createPostgresDialect(url, logger);
  const availability = new StoreAvailability({ probe: postgres.probe, logger });
  const db = new Kysely<StoreDatabase>({ dialect: new GuardedDialect(postgres.dialect, availability) });
  return createStore(db, "postgres", clock, availability, logger);
}

/** The error of a failed open: names DATABASE_URL and the driver's reason (a host at most, never the password). */
function openError(kind: StoreDialect, error: unknown): Error {
  const root = isGatewayError(error) && error.cause !== undefined ? error.cause : error;
  const reason = root instanceof Error ? root.message : String(root);
  const message = `DATABASE_URL: cannot open the ${kind} store (${reason})`;
  return isUnreachable(error) ? new StoreUnreachableError("database", message, { cause: error }) : new Error(message, { cause: error });
}

async function currentSchema(db: Kysely<StoreDatabase>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("DATABASE_URL: the Postgres search_path names no existing schema");
  return schema;
}
