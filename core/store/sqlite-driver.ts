/** A kysely dialect for bun:sqlite: kysely ships the compiler/adapter, we supply the driver. */
import { Database, type SQLQueryBindings } from "bun:sqlite";
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** Options of {@link BunSqliteDialect}. */
export interface BunSqliteConfig {
  /** A file path, or `:memory:`. */
  path: string;
}

/** The bun:sqlite dialect: one connection, which kysely's connection mutex serializes. */
export class BunSqliteDialect implements Dialect {
  private driver: BunSqliteDriver | undefined;

  constructor(private readonly config: BunSqliteConfig) {}

  createDriver(): Driver {
    return (this.driver = new BunSqliteDriver(this.config));
  }

  /**
   * The open bun:sqlite handle, for a hot statement run without kysely's query building. Use it only while holding
   * kysely's one connection (`db.connection().execute(...)`), synchronously, so nothing interleaves with a kysely
   * transaction; throws when the database is not open.
   */
  database(): Database {
    const db = this.driver?.database;
    if (!db) throw new Error("sqlite driver is not initialized or already destroyed");
    return db;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/** SQLite's adapter, with the two properties our driver relies on stated explicitly. */
class TransactionalSqliteAdapter extends SqliteAdapter {
  /**
   * One connection: kysely's runtime driver then holds a mutex from acquire to release of the connection, so a
   * transaction owns it from BEGIN to COMMIT and concurrent transactions (and queries) serialize behind it.
   */
  override get supportsMultipleConnections(): boolean {
    return false;
  }

  /**
   * SQLite does support transactional DDL. Saying so makes kysely's Migrator run inside one transaction, which our
   * driver opens with BEGIN IMMEDIATE: two processes migrating the same fresh file then serialize on the write
   * lock instead of both trying to create the tables (kysely's SQLite migration lock is a no-op).
   */
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** The driver: opens the database lazily and hands out its one connection. */
class BunSqliteDriver implements Driver {
  private db: Database | undefined;

  get database(): Database | undefined {
    return this.connection ? this.db : undefined;
  }
  private connection: BunSqliteConnection | undefined;

  constructor(private readonly config: BunSqliteConfig) {}

  async init(): Promise<void> {
    const db = new Database(this.config.path, { create: true, readwrite: true });
    // busy_timeout first: it makes a second process wait for a lock instead of failing at once, and switching
    // the journal mode itself needs one. WAL lets readers proceed while a writer commits; NORMAL sync is durable
    // across application crashes in WAL mode.
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (this.config.path !== ":memory:") db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    // A small page cache: the ledger appends and keys are cached above the store, so 512 KB is plenty (default 2 MB).
    db.run("PRAGMA cache_size = -512");
    this.db = db;
    this.connection = new BunSqliteConnection(db);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.connection) throw new Error("sqlite driver is not initialized or already destroyed");
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // IMMEDIATE takes the write lock up front, so busy_timeout applies; a deferred transaction that later upgrades
    // from read to write fails with SQLITE_BUSY without waiting.
    const mode = settings.accessMode === "read only" ? "deferred" : "immediate";
    await connection.executeQuery(CompiledQuery.raw(`begin ${mode}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteIdentifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteIdentifier(name)}`));
  }

  async releaseConnection(): Promise<void> {
    // Nothing to do: the connection is shared, and kysely releases its mutex (see the adapter).
  }

  async destroy(): Promise<void> {
    this.connection = undefined;
    this.db?.close();
    this.db = undefined;
  }
}

/** Statements with more bound parameters than this are not kept in bun:sqlite's statement cache. */
const CACHE_MAX_PARAMETERS = 64;

/** The single connection: bun:sqlite is synchronous, so each query completes before the promise is returned. */
class BunSqliteConnection implements DatabaseConnection {
  constructor(private readonly db: Database) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // db.query caches the prepared statement by SQL text, which pays off for the small, recurring shapes. Batch
    // inserts produce a new text per row count and are large, so caching them only holds memory (measured: 10-17 MB
    // after traffic); those are prepared once, used and finalized.
    const cacheable = compiledQuery.parameters.length <= CACHE_MAX_PARAMETERS;
    const statement = cacheable ? this.db.query(compiledQuery.sql) : this.db.prepare(compiledQuery.sql);
    try {
      const params = compiledQuery.parameters.map(toBinding);
      // A statement with result columns is a SELECT or carries RETURNING: its rows are the result.
      if (statement.columnNames.length > 0) {
        return { rows: statement.all(...params) as R[] };
      }
      const { changes, lastInsertRowid } = statement.run(...params);
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    } finally {
      if (!cacheable) statement.finalize();
    }
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("bun:sqlite driver: streamQuery is not supported");
  }
}

/** Narrows kysely's `unknown` parameters to what bun:sqlite can bind. */
export function toBinding(value: unknown): SQLQueryBindings {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "number":
    case "bigint":
      return value;
    case "boolean":
      return value ? 1 : 0;
  }
  if (value instanceof Uint8Array) return value;
  if (value instanceof Date) return value.getTime();
  throw new TypeError(`bun:sqlite driver: cannot bind a parameter of type ${typeof value}`);
}

/** Double-quotes an identifier for SQLite (savepoint names come from kysely callers). */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
