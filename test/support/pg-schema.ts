/** Postgres test isolation: a fresh schema per run, selected through search_path, dropped at the end. */
import pg from "pg";

/** The Postgres URL to test against, when one is configured. */
export const POSTGRES_URL = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;

/** A throwaway schema and a URL whose connections use it. */
export interface TempSchema {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(baseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a uniquely named schema (the database is shared by CI runs) and a URL that selects it. */
export async function createTempSchema(baseUrl: string): Promise<TempSchema> {
  const name = `gw_test_${process.pid}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin(baseUrl, (c) => c.query(`create schema "${name}"`));
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: () => admin(baseUrl, (c) => c.query(`drop schema if exists "${name}" cascade`)).then(() => undefined),
  };
}

/** Logs, once, why the Postgres suites are skipped. */
export function logPostgresSkip(): void {
  if (!POSTGRES_URL) console.log("store: Postgres tests skipped (set DATABASE_URL=postgres://… to run them)");
}
