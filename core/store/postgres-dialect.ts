/** The Postgres dialect (ARCHITECTURE §5): kysely's own, over a `pg` pool that returns int8 as JS numbers. */
import { PostgresDialect } from "kysely";
import pg from "pg";
import type { Logger } from "pino";

/** Connections per process; the gateway's queries are short, so a small pool goes a long way. */
const POOL_SIZE = 10;
/** pg waits forever for a connection by default; an unreachable host must fail startup and requests instead. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * pg returns int8 (bigint) as a string because it may exceed 2^53. Ours are unix-ms timestamps and counts, far
 * below that, so parse them as numbers; the parser is per pool, leaving the process-global pg defaults untouched.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Creates the Postgres dialect for a `postgres://` URL. */
export function createPostgresDialect(url: string, logger?: Logger): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
  });
  // An idle client's error (server restart, network drop) is emitted on the pool; unhandled it would crash us.
  pool.on("error", (error) => logger?.warn({ err: error }, "postgres: idle client error"));
  return new PostgresDialect({ pool });
}
