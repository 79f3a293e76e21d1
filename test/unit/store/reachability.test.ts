/**
 * core/store/reachability.ts: only errors that say the database cannot be reached (or cannot take writes now) make
 * the store unavailable; a fault of the query or the data stays a fault (a 500), never an outage.
 */
import { describe, expect, test } from "bun:test";
import { isUnreachable } from "../../../core/store/reachability.ts";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("isUnreachable", () => {
  test.each([
    ["a refused connection", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5999")],
    ["a reset connection", withCode("ECONNRESET")],
    ["an unknown host", withCode("ENOTFOUND")],
    ["pg: a connection that died under a query", new Error("Connection terminated unexpectedly")],
    ["pg: the wait for a pooled connection timing out", new Error("timeout exceeded when trying to connect")],
    ["pg: a query without a reply", new Error("Query read timeout")],
    ["pg: a broken client", new Error("Client has encountered a connection error and is not queryable")],
    ["Postgres shutting down (57P01)", withCode("57P01", "terminating connection due to administrator command")],
    ["Postgres starting up (57P03)", withCode("57P03", "the database system is starting up")],
    ["a connection exception (08006)", withCode("08006")],
    ["too many connections (53300)", withCode("53300")],
    ["a standby after a fail-over (25006)", withCode("25006", "cannot execute INSERT in a read-only transaction")],
    ["SQLite locked by another process", withCode("SQLITE_BUSY", "database is locked")],
    ["SQLite disk full", withCode("SQLITE_FULL")],
    ["SQLite I/O error", withCode("SQLITE_IOERR_WRITE")],
    ["a wrapped cause", new Error("failed", { cause: withCode("ECONNREFUSED") })],
    ["one of several addresses refused", new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")], "connect failed")],
  ])("%s is an outage", (_, error) => {
    expect(isUnreachable(error)).toBe(true);
  });

  test.each([
    ["a unique violation (23505)", withCode("23505", "duplicate key value violates unique constraint")],
    ["a syntax error (42601)", withCode("42601")],
    ["a missing table (42P01)", withCode("42P01")],
    ["a wrong password (28P01)", withCode("28P01", "password authentication failed")],
    ["SQLite constraint", withCode("SQLITE_CONSTRAINT_PRIMARYKEY")],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["not an error", "ECONNREFUSED"],
    ["nothing", undefined],
  ])("%s is not", (_, error) => {
    expect(isUnreachable(error)).toBe(false);
  });
});
