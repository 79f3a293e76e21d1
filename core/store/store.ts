/** Assembles the repositories into the injected `Store` (ARCHITECTURE §5). */
import type { Database } from "bun:sqlite";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { StoreClock } from "./clock.ts";
import { createBatchRepo } from "./repos/batches.ts";
import { createGenerationRepo } from "./repos/generations.ts";
import { createKeyRepo } from "./repos/keys.ts";
import { createPresetRepo } from "./repos/presets.ts";
import { createWorkspaceRepo } from "./repos/workspaces.ts";
import type { StoreDatabase, StoreDialect } from "./schema.ts";
import type { Store } from "./types.ts";

/**
 * Builds a `Store` over an open, migrated database; `close()` destroys the database handle. On SQLite, `sqliteHandle`
 * returns the driver's bun:sqlite database, which the ledger's hot insert uses directly (see repos/generations.ts).
 */
export function createStore(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  clock: StoreClock,
  logger?: Logger,
  sqliteHandle?: () => Database,
): Store {
  let closed: Promise<void> | undefined;
  return {
    dialect,
    workspaces: createWorkspaceRepo(db, clock),
    keys: createKeyRepo(db, clock, logger),
    generations: createGenerationRepo(db, sqliteHandle),
    presets: createPresetRepo(db, dialect),
    batches: createBatchRepo(db, dialect),
    // Idempotent: shutdown paths may race to close the store.
    close: () => (closed ??= db.destroy()),
  };
}
