/**
 * The multi-node deployment's stores for `npm run bench`: Postgres and Redis on this machine (README "Operating the
 * gateway"). `BENCH_DATABASE_URL` (else DATABASE_URL when it is a Postgres URL, else the local `test` database) and
 * `BENCH_REDIS_URL` (else REDIS_URL, else the local 6379). The gateway gets a schema of its own in that database,
 * dropped at the end, as the tests do (test/support/pg-schema.ts): the database is shared with other runs. When
 * either is unreachable the reason is returned and the multi-node figure is reported as not measured.
 */
import Redis from "ioredis";
import { createTempSchema } from "../test/support/pg-schema.ts";

export interface SharedStores {
  databaseUrl: string;
  redisUrl: string;
  /** Shown in the report (no credentials: the URLs' hosts and database). */
  label: string;
  drop(): Promise<void>;
}

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";
const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export async function prepareSharedStores(): Promise<SharedStores | { skip: string }> {
  if (process.env.BENCH_MULTI_NODE === "0") return { skip: "BENCH_MULTI_NODE=0" };
  const postgres = process.env.BENCH_DATABASE_URL || (process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : DEFAULT_DATABASE_URL);
  const redisUrl = process.env.BENCH_REDIS_URL || process.env.REDIS_URL || DEFAULT_REDIS_URL;
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return { skip: `Redis at ${hostOf(redisUrl)} unreachable: ${(error as Error).message}` };
  } finally {
    redis.disconnect();
  }
  try {
    const schema = await withTimeout(createTempSchema(postgres), 5000);
    return { databaseUrl: schema.url, redisUrl, label: `Postgres ${hostOf(postgres)}, Redis ${hostOf(redisUrl)}`, drop: () => schema.drop() };
  } catch (error) {
    return { skip: `Postgres at ${hostOf(postgres)} unusable: ${(error as Error).message}` };
  }
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, Bun.sleep(ms).then(() => Promise.reject(new Error(`no answer within ${ms} ms`)))]);
}
