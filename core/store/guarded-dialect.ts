/**
 * Wraps a kysely dialect so that every database operation passes one gate (availability.ts): while the database is
 * down a connection is refused at once with the 503, and an error that says the database is unreachable — whichever
 * query, transaction step or connection hit it — becomes the 503 and marks the store down. Every repository query
 * goes through here, so none of them needs its own error handling for outages.
 */
import type { CompiledQuery, DatabaseConnection, DatabaseIntrospector, Dialect, DialectAdapter, Driver, Kysely, QueryCompiler, QueryResult, TransactionSettings } from "kysely";
import type { StoreAvailability } from "./availability.ts";

type Gate = Pick<StoreAvailability, "check" | "failed">;

export class GuardedDialect implements Dialect {
  constructor(
    private readonly inner: Dialect,
    private readonly gate: Gate,
  ) {}

  createDriver(): Driver {
    return new GuardedDriver(this.inner.createDriver(), this.gate);
  }

  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}

/** Runs `op`, turning an unreachable-database error into the 503. */
async function gated<T>(gate: Gate, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw gate.failed(error);
  }
}

class GuardedDriver implements Driver {
  /** One wrapper per driver connection: kysely keys per-connection state on the object it was given. */
  private readonly wrappers = new WeakMap<DatabaseConnection, GuardedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly gate: Gate,
  ) {}

  init(): Promise<void> {
    return gated(this.gate, () => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // Not a throw: kysely holds SQLite's connection mutex across this call and would never release it. A refused
    // connection fails its first statement instead, and its release is a no-op.
    try {
      this.gate.check();
    } catch (refusal) {
      return new RefusedConnection(refusal);
    }
    const connection = await gated(this.gate, () => this.inner.acquireConnection());
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) this.wrappers.set(connection, (wrapper = new GuardedConnection(connection, this.gate)));
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.on(connection, (inner) => this.inner.beginTransaction(inner, settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.on(connection, (inner) => this.inner.commitTransaction(inner));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.on(connection, (inner) => this.inner.rollbackTransaction(inner));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.on(connection, (inner) => required(this.inner.savepoint, "savepoint").call(this.inner, inner, name, compile));
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.on(connection, (inner) => required(this.inner.rollbackToSavepoint, "rollbackToSavepoint").call(this.inner, inner, name, compile));
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    return this.on(connection, (inner) => required(this.inner.releaseSavepoint, "releaseSavepoint").call(this.inner, inner, name, compile));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof GuardedConnection) await this.inner.releaseConnection(connection.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /** Runs a driver step on the connection underneath ours; a refused connection fails it with its refusal. */
  private on(connection: DatabaseConnection, op: (inner: DatabaseConnection) => Promise<void>): Promise<void> {
    if (connection instanceof RefusedConnection) return Promise.reject(connection.refusal);
    const inner = connection instanceof GuardedConnection ? connection.inner : connection;
    return gated(this.gate, () => op(inner));
  }
}

class GuardedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly gate: Gate,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return gated(this.gate, () => this.inner.executeQuery<R>(query));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw this.gate.failed(error);
    }
  }
}

/** What a connection request gets while the database is down: every statement fails at once with the 503. */
class RefusedConnection implements DatabaseConnection {
  constructor(readonly refusal: unknown) {}

  executeQuery<R>(): Promise<QueryResult<R>> {
    return Promise.reject(this.refusal);
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw this.refusal;
  }
}

function required<F>(method: F | undefined, name: string): F {
  if (!method) throw new Error(`store: the driver does not support ${name}`);
  return method;
}
