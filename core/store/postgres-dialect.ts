/** The Postgres dialect: kysely's own, over a `pg` pool that returns int8 as JS numbers. */
import { PostgresDialect } from "kysely";
import pg from "pg";
import type { Logger } from "pino";

/** Connections per process; the gateway's queries are short, so a small pool goes a long way. */
const POOL_SIZE = 10;
/**
 * pg waits forever for a connection by default. A host that does not answer fails the connection (and the wait for a
 * free one) after this long; the store is then marked down and answers at once (availability.ts).
 */
const CONNECT_TIMEOUT_MS = 3_000;
/** A query without any reply for this long fails (a frozen server or a silent network): no request waits longer. */
const QUERY_TIMEOUT_MS = 15_000;
/** The probe of a down database is one short round trip. */
const PROBE_TIMEOUT_MS = 2_000;
/** Connection errors come in bursts (one per pooled client when the server goes away): one log line per window. */
const LOG_EVERY_MS = 10_000;

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

/** The dialect, and the probe that tells whether the server is reachable (and writable) again. */
export interface PostgresConnection {
  dialect: PostgresDialect;
  probe: () => Promise<void>;
}

/**
 * Creates the Postgres dialect for a `postgres://` URL. `queryTimeoutMs` 0 lets queries run as long as they take:
 * migrations (an index built over a large table) use that, request traffic the default.
 */
export function createPostgresDialect(url: string, logger?: Logger, queryTimeoutMs = QUERY_TIMEOUT_MS): PostgresConnection {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: queryTimeoutMs,
    types,
  });
  const log = throttledWarn(logger);
  // A client's connection can die while idle in the pool (the pool emits it) or while a query runs on it (the client
  // emits it, and the query fails on its own). Unhandled, either `error` event ends the process: both are logged
  // here, and the failed query reaches its caller as a 503 through the store's gate.
  pool.on("error", (error) => log(error, "postgres: an idle connection failed"));
  pool.on("connect", (client) => client.on("error", (error) => log(error, "postgres: a connection failed")));
  return { dialect: new PostgresDialect({ pool }), probe: () => probe(url) };
}

/**
 * One round trip on a fresh connection, outside the pool (a saturated pool is not an unreachable server): rejects
 * unless the server answers and takes writes (a standby after a fail-over does not).
 */
async function probe(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ standby: boolean }>("select pg_is_in_recovery() as standby");
    if (rows[0]?.standby) throw new Error("postgres: the server is a standby (read only)");
  } finally {
    await client.end().catch(() => undefined);
  }
}

function throttledWarn(logger: Logger | undefined): (error: Error, message: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (error, message) => {
    const now = Date.now();
    if (now - last < LOG_EVERY_MS) return;
    last = now;
    logger?.warn({ err: error }, message);
  };
}
