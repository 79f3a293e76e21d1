/** Store backends the preset and batch repository tests run on (Postgres: two handles, as two processes hold). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../../core/store/connect.ts";
import type { Store } from "../../../core/store/types.ts";
import { createTempSchema, POSTGRES_URL } from "../../support/pg-schema.ts";

/** A backend under test: `open` gives a new handle on the same database. */
export interface Backend {
  label: string;
  skip: boolean;
  /** Opens two handles on one fresh database; `close` closes both and cleans up. */
  pair(): Promise<{ a: Store; b: Store; close(): Promise<void> }>;
}

export const backends: Backend[] = [
  {
    // One handle twice: bun:sqlite waits for a lock synchronously, so a second handle in the SAME process blocks the
    // event loop the first one needs to finish its transaction. Separate processes are tested with child processes.
    label: "sqlite file",
    skip: false,
    async pair() {
      const file = join(mkdtempSync(join(tmpdir(), "gw-repo-")), "g.db");
      const a = await openStore(`sqlite://${file}`);
      return { a, b: a, close: () => a.close() };
    },
  },
  {
    label: "postgres",
    skip: !POSTGRES_URL,
    async pair() {
      const schema = await createTempSchema(POSTGRES_URL ?? "");
      const a = await openStore(schema.url);
      const b = await openStore(schema.url);
      return {
        a,
        b,
        close: async () => {
          await Promise.all([a.close(), b.close()]);
          await schema.drop();
        },
      };
    },
  },
];

if (!POSTGRES_URL) console.log("presets/batches repositories: Postgres cases skipped (set DATABASE_URL=postgres://… to run them)");
