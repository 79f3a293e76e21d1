/** Assembles the repositories into the injected `Store`. */
import { sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import { storeUnavailable } from "../ops/unavailable.ts";
import type { StoreAvailability } from "./availability.ts";
import type { StoreClock } from "./clock.ts";
import { createBatchRepo } from "./repos/batches.ts";
import { createGenerationRepo, type SqliteRunner } from "./repos/generations.ts";
import { createKeyRepo } from "./repos/keys.ts";
import { createPresetRepo } from "./repos/presets.ts";
import { createAdmissionRepo } from "./repos/admissions.ts";
import { createGuardrailRepo } from "./repos/guardrails.ts";
import { createWorkspaceRepo } from "./repos/workspaces.ts";
import { createIdempotencyRepo } from "./repos/idempotency.ts";
import { createByokRepo } from "./repos/byok.ts";
import type { StoreDatabase, StoreDialect } from "./schema.ts";
import type { BunSqliteDialect } from "./sqlite-driver.ts";
import type { Store } from "./types.ts";

/**
 * Builds a `Store` over an open, migrated database whose dialect is gated by `availability` (guarded-dialect.ts);
 * `close()` destroys the database handle. On SQLite, `sqlite` gives the ledger's hot insert the driver's bun:sqlite
 * database directly (see repos/generations.ts).
 */
export function createStore(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  clock: StoreClock,
  availability: StoreAvailability,
  logger?: Logger,
  sqlite?: BunSqliteDialect,
): Store {
  let closed: Promise<void> | undefined;
  return {
    dialect,
    availability,
    workspaces: createWorkspaceRepo(db, clock),
    keys: createKeyRepo(db, clock, logger),
    generations: createGenerationRepo(db, sqlite && sqliteRunner(db, sqlite, availability)),
    presets: createPresetRepo(db, dialect),
    batches: createBatchRepo(db, dialect),
    guardrails: createGuardrailRepo(db, clock),
    admissions: createAdmissionRepo(db, clock),
    idempotency: createIdempotencyRepo(db),
    byok: createByokRepo(db, clock),
    ping: (timeoutMs) => ping(db, timeoutMs),
    // Idempotent: shutdown paths may race to close the store.
    close: () =>
      (closed ??= (async () => {
        availability.close();
        await db.destroy();
      })()),
  };
}

/**
 * Runs statements on the bun:sqlite handle while holding kysely's one connection (so nothing interleaves with a
 * kysely transaction), through the same gate as every kysely query: refused while the store is down, and a locked,
 * full or failing database answered with the 503.
 */
function sqliteRunner(db: Kysely<StoreDatabase>, sqlite: BunSqliteDialect, availability: StoreAvailability): SqliteRunner {
  return (run) =>
    db.connection().execute(async () => {
      availability.check();
      try {
        return run(sqlite.database());
      } catch (error) {
        throw availability.failed(error);
      }
    });
}

/** One round trip (`select 1`), failing with the 503 when it errs or takes longer than `timeoutMs`. */
async function ping(db: Kysely<StoreDatabase>, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeUnavailable("database", new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(db), late]);
  } finally {
    clearTimeout(timer);
  }
}
