/**
 * Which database errors mean "the database cannot be reached or cannot take this now" (an outage: answer 503, retry
 * later) as opposed to a fault of the query or the data (a bug: answer 500). Only the first kind marks the store down
 * (availability.ts); a constraint violation must never make the gateway look unavailable.
 */

/** Socket-level failures (Node and Bun name them alike). */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "EHOSTDOWN", "ENETUNREACH", "ENETDOWN", "ENOTFOUND", "EAI_AGAIN", "ConnectionRefused", "ConnectionClosed"]);

/**
 * Postgres SQLSTATEs: class 08 (connection exception), 53 (insufficient resources: too many connections, disk full),
 * 57P01–57P03 (administrator or crash shutdown, cannot connect now: starting up or in recovery), 58030 (I/O error),
 * and 25006 (a read-only transaction: the server is a standby, e.g. right after a fail-over).
 */
function isOutageSqlState(code: string): boolean {
  return code.startsWith("08") || code.startsWith("53") || ["57P01", "57P02", "57P03", "58030", "25006"].includes(code);
}

/** SQLite result codes (bun:sqlite's `code`) of a database that is locked, read-only, full or failing I/O. */
const SQLITE_PREFIXES = ["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PROTOCOL"];

/**
 * pg's own errors carry no code: a connection that died under a query, the pool's wait for a connection timing out,
 * a query that got no reply in time, a client already broken.
 */
const PG_MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i, /query read timeout/i, /is not queryable/i, /connection timeout/i];

/** True when `error` (or its cause, or one of an AggregateError's errors) says the database is unreachable. */
export function isUnreachable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== "object" || error === null) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && isOutageSqlState(code)) return true;
    if (SQLITE_PREFIXES.some((prefix) => code.startsWith(prefix))) return true;
  }
  if (typeof message === "string" && PG_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isUnreachable(inner, depth + 1))) return true;
  return isUnreachable(cause, depth + 1);
}
