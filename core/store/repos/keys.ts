/** The API keys repository: rows keyed by the SHA-256 of the secret, never the secret. */
import type { Kysely, Selectable, Updateable } from "kysely";
import type { Logger } from "pino";
import type { StoreClock } from "../clock.ts";
import type { ApiKeysTable, StoreDatabase } from "../schema.ts";
import type { ApiKeyRecord, KeyRateLimit, KeyRepo, LimitReset } from "../types/keys.ts";
import { fromBool, toBool, toNumber, toNumberOrNull } from "./convert.ts";

type KeyPatch = Parameters<KeyRepo["update"]>[1];

/** Creates the API keys repository over a migrated database. */
export function createKeyRepo(db: Kysely<StoreDatabase>, clock: StoreClock, logger?: Logger): KeyRepo {
  async function findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await db.selectFrom("api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
    return row && toKeyRecord(row);
  }

  return {
    findByHash,

    async create(key) {
      // Rounded: bigint columns reject a fractional millisecond on Postgres.
      const now = Math.round(clock.now());
      const row = await db
        .insertInto("api_keys")
        .values({
          hash: key.hash,
          workspace_id: key.workspaceId,
          name: key.name,
          label: key.label,
          is_management: fromBool(key.isManagement),
          is_operator: fromBool(key.isManagement && (key.isOperator ?? false)),
          disabled: 0,
          limit_usd: key.limit,
          limit_reset: key.limitReset,
          created_at: now,
          updated_at: now,
          expires_at: key.expiresAt === null ? null : Math.round(key.expiresAt),
          ...rateLimitColumns(key.rateLimit ?? null),
          include_byok_in_limit: fromBool(key.includeByokInLimit ?? false),
          ...(key.strict !== undefined ? { strict: fromBool(key.strict) } : {}),
          ...(key.cache !== undefined ? cacheColumns(key.cache) : {}),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toKeyRecord(row);
    },

    async list(workspaceId, opts) {
      let query = db
        .selectFrom("api_keys")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        // The hash breaks ties between keys created in the same millisecond, so pages never overlap.
        .orderBy("created_at", "asc")
        .orderBy("hash", "asc")
        .limit(opts.limit)
        .offset(opts.offset);
      if (!opts.includeDisabled) query = query.where("disabled", "=", 0);
      const rows = await query.execute();
      return rows.map(toKeyRecord);
    },

    async update(hash, patch) {
      const changes = toRowPatch(patch);
      if (Object.keys(changes).length === 0) return findByHash(hash);
      const row = await db
        .updateTable("api_keys")
        .set({ ...changes, updated_at: Math.round(clock.now()) })
        .where("hash", "=", hash)
        .returningAll()
        .executeTakeFirst();
      return row && toKeyRecord(row);
    },

    async delete(hash) {
      const result = await db.deleteFrom("api_keys").where("hash", "=", hash).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async count() {
      const row = await db
        .selectFrom("api_keys")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },

    async countLive(workspaceId, now) {
      const row = await db
        .selectFrom("api_keys")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("workspace_id", "=", workspaceId)
        .where("disabled", "=", 0)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", Math.round(now))]))
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },

    async disableWorkspace(workspaceId) {
      const rows = await db
        .updateTable("api_keys")
        .set({ disabled: 1, updated_at: Math.round(clock.now()) })
        .where("workspace_id", "=", workspaceId)
        .where("disabled", "=", 0)
        .returning("hash")
        .execute();
      return rows.map((r) => r.hash);
    },

    async addUsage(entries) {
      const totals = sumByHash(entries, logger);
      if (totals.length === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const [hash, amount] of totals) {
          // `usage_usd + ?` is evaluated by the database under the row lock, so concurrent flushes never lose
          // an increment (a read-modify-write in JS would).
          await trx
            .updateTable("api_keys")
            .set((eb) => ({ usage_usd: eb("usage_usd", "+", amount) }))
            .where("hash", "=", hash)
            .execute();
        }
      });
    },
  };
}

/**
 * Merges entries per key and sorts them by hash: one UPDATE per key, and every flush locks rows in the same order,
 * so two concurrent flushes on Postgres cannot deadlock. Non-finite amounts are dropped (they would poison the sum).
 */
function sumByHash(
  entries: ReadonlyArray<{ hash: string; amount: number }>,
  logger: Logger | undefined,
): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const { hash, amount } of entries) {
    if (!Number.isFinite(amount)) {
      logger?.warn({ keyHash: hash, amount }, "store: dropped a non-finite usage amount");
      continue;
    }
    if (amount === 0) continue;
    totals.set(hash, (totals.get(hash) ?? 0) + amount);
  }
  return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function toRowPatch(patch: KeyPatch): Updateable<ApiKeysTable> {
  const row: Updateable<ApiKeysTable> = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.disabled !== undefined) row.disabled = fromBool(patch.disabled);
  if (patch.limit !== undefined) row.limit_usd = patch.limit;
  if (patch.limitReset !== undefined) row.limit_reset = patch.limitReset;
  if (patch.expiresAt !== undefined) row.expires_at = patch.expiresAt === null ? null : Math.round(patch.expiresAt);
  if (patch.rateLimit !== undefined) Object.assign(row, rateLimitColumns(patch.rateLimit));
  if (patch.includeByokInLimit !== undefined) row.include_byok_in_limit = fromBool(patch.includeByokInLimit);
  if (patch.strict !== undefined) row.strict = patch.strict === null ? null : fromBool(patch.strict);
  if (patch.cache !== undefined) Object.assign(row, cacheColumns(patch.cache));
  return row;
}

/** The response-cache columns of a key (both null = unset). */
function cacheColumns(cache: { enabled: boolean; ttlSeconds?: number } | null): Pick<Updateable<ApiKeysTable>, "cache_enabled" | "cache_ttl_seconds"> {
  return { cache_enabled: cache === null ? null : fromBool(cache.enabled), cache_ttl_seconds: cache?.ttlSeconds ?? null };
}

function optionalCache(row: Selectable<ApiKeysTable>): { cache?: { enabled: boolean; ttlSeconds?: number } } {
  if (row.cache_enabled === null || row.cache_enabled === undefined) return {};
  const ttl = toNumberOrNull(row.cache_ttl_seconds ?? null);
  return { cache: ttl === null ? { enabled: toBool(row.cache_enabled) } : { enabled: toBool(row.cache_enabled), ttlSeconds: ttl } };
}

/** The three rate-limit columns of a key (all null = the config default). */
function rateLimitColumns(limit: KeyRateLimit | null): Pick<Updateable<ApiKeysTable>, "rate_limit_requests" | "rate_limit_tokens" | "rate_limit_interval_s"> {
  return {
    rate_limit_requests: limit?.requests ?? null,
    rate_limit_tokens: limit?.tokens ?? null,
    rate_limit_interval_s: limit ? limit.intervalSeconds : null,
  };
}

function toRateLimit(row: Selectable<ApiKeysTable>): KeyRateLimit | null {
  const requests = toNumberOrNull(row.rate_limit_requests ?? null);
  const tokens = toNumberOrNull(row.rate_limit_tokens ?? null);
  if (requests === null && tokens === null) return null;
  return { requests, tokens, intervalSeconds: toNumberOrNull(row.rate_limit_interval_s ?? null) ?? 60 };
}

function toKeyRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    hash: row.hash,
    workspaceId: row.workspace_id,
    name: row.name,
    label: row.label,
    isManagement: toBool(row.is_management),
    ...(toBool(row.is_operator ?? 0) ? { isOperator: true } : {}),
    disabled: toBool(row.disabled),
    limit: toNumberOrNull(row.limit_usd),
    limitReset: toLimitReset(row.limit_reset),
    usage: toNumber(row.usage_usd),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
    expiresAt: toNumberOrNull(row.expires_at),
    includeByokInLimit: toBool(row.include_byok_in_limit),
    // Left out when unset, so records read the same as before per-key rate limits existed.
    ...optionalRateLimit(toRateLimit(row)),
    // Absent when unset: the config's default applies.
    ...(row.strict === null || row.strict === undefined ? {} : { strict: toBool(row.strict) }),
    ...optionalCache(row),
  };
}

function optionalRateLimit(limit: KeyRateLimit | null): { rateLimit?: KeyRateLimit } {
  return limit ? { rateLimit: limit } : {};
}

function toLimitReset(value: string | null): LimitReset | null {
  if (value === "daily" || value === "weekly" || value === "monthly") return value;
  return null;
}
