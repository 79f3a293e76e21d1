/** The presets repository (spec "Preset"): presets per workspace and slug, numbered versions. */
import type { Kysely, Selectable, Transaction } from "kysely";
import type { PresetsTable, PresetVersionsTable, StoreDatabase, StoreDialect } from "../schema.ts";
import type { NewPresetVersion, PresetRecord, PresetRepo, PresetVersionRecord } from "../types/presets.ts";
import { toNumber, toNumberOrNull } from "./convert.ts";

/** Attempts of one version creation before giving up with a conflict (each attempt is a fresh transaction). */
const MAX_ATTEMPTS = 5;

/** Thrown inside a transaction to roll it back and retry: the version number was taken by a concurrent writer. */
class VersionTaken extends Error {}

/** Creates the presets repository over a migrated database. */
export function createPresetRepo(db: Kysely<StoreDatabase>, dialect: StoreDialect): PresetRepo {
  async function withVersion(row: Selectable<PresetsTable>): Promise<PresetRecord | undefined> {
    if (row.designated_version_id === null) return undefined;
    const version = await db.selectFrom("preset_versions").selectAll().where("id", "=", row.designated_version_id).executeTakeFirst();
    return version && toPreset(row, version);
  }

  /**
   * One attempt: ensure the preset row, lock it (Postgres), read max(version), insert max+1, designate it.
   * The row lock serialises writers of one preset on Postgres, so the unique (preset_id, version) constraint is the
   * backstop rather than the common path; SQLite transactions are already serialised by BEGIN IMMEDIATE.
   */
  async function attempt(input: NewPresetVersion): Promise<PresetRecord> {
    return db.transaction().execute(async (trx) => {
      const now = Math.round(input.now);
      await trx
        .insertInto("presets")
        .values({
          id: crypto.randomUUID(),
          workspace_id: input.workspaceId,
          slug: input.slug,
          name: input.slug,
          description: null,
          status: "active",
          status_updated_at: now,
          created_at: now,
          updated_at: now,
          creator_user_id: input.creatorId,
          designated_version_id: null,
        })
        .onConflict((oc) => oc.columns(["workspace_id", "slug"]).doNothing())
        .execute();
      const preset = await lockPreset(trx, input.workspaceId, input.slug);
      // Deleted between our insert and the select (a concurrent DELETE): start over.
      if (!preset) throw new VersionTaken();
      const max = await trx
        .selectFrom("preset_versions")
        .select((eb) => eb.fn.max("version").as("v"))
        .where("preset_id", "=", preset.id)
        .executeTakeFirst();
      const next = (max?.v === null || max?.v === undefined ? 0 : toNumber(max.v)) + 1;
      const versionRow = {
        id: crypto.randomUUID(),
        preset_id: preset.id,
        version: next,
        config: JSON.stringify(input.config),
        system_prompt: input.systemPrompt,
        creator_id: input.creatorId,
        created_at: now,
        updated_at: now,
      };
      try {
        await trx.insertInto("preset_versions").values(versionRow).execute();
      } catch (error) {
        if (isUniqueViolation(error)) throw new VersionTaken();
        throw error;
      }
      const updated = await trx
        .updateTable("presets")
        .set({ designated_version_id: versionRow.id, updated_at: now })
        .where("id", "=", preset.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toPreset(updated, versionRow);
    });
  }

  function lockPreset(trx: Transaction<StoreDatabase>, workspaceId: string, slug: string) {
    const query = trx.selectFrom("presets").selectAll().where("workspace_id", "=", workspaceId).where("slug", "=", slug);
    // SQLite has no FOR UPDATE (and needs none: the whole transaction holds the write lock).
    return (dialect === "postgres" ? query.forUpdate() : query).executeTakeFirst();
  }

  return {
    async createVersion(input) {
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        try {
          return await attempt(input);
        } catch (error) {
          if (!(error instanceof VersionTaken)) throw error;
          // A short random pause de-synchronises the writers that collided.
          await Bun.sleep(Math.random() * 5 * (i + 1));
        }
      }
      return "conflict";
    },

    async get(workspaceId, slug) {
      const row = await db.selectFrom("presets").selectAll().where("workspace_id", "=", workspaceId).where("slug", "=", slug).executeTakeFirst();
      return row && withVersion(row);
    },

    async list(workspaceId, page) {
      const rows = await db
        .selectFrom("presets")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("designated_version_id", "is not", null)
        // The id breaks ties between presets updated in the same millisecond, so pages never overlap.
        .orderBy("updated_at", "desc")
        .orderBy("id", "desc")
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      const ids = rows.flatMap((row) => (row.designated_version_id === null ? [] : [row.designated_version_id]));
      const versions = ids.length === 0 ? [] : await db.selectFrom("preset_versions").selectAll().where("id", "in", ids).execute();
      const byId = new Map(versions.map((v) => [v.id, v]));
      const presets = rows.flatMap((row) => {
        const version = row.designated_version_id === null ? undefined : byId.get(row.designated_version_id);
        return version ? [toPreset(row, version)] : [];
      });
      const count = await db
        .selectFrom("presets")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("workspace_id", "=", workspaceId)
        .where("designated_version_id", "is not", null)
        .executeTakeFirstOrThrow();
      return { presets, total: toNumber(count.n) };
    },

    async listVersions(presetId, page) {
      const rows = await db
        .selectFrom("preset_versions")
        .selectAll()
        .where("preset_id", "=", presetId)
        .orderBy("version", "asc")
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      const count = await db
        .selectFrom("preset_versions")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("preset_id", "=", presetId)
        .executeTakeFirstOrThrow();
      return { versions: rows.map(toVersion), total: toNumber(count.n) };
    },

    async getVersion(presetId, version) {
      const row = await db.selectFrom("preset_versions").selectAll().where("preset_id", "=", presetId).where("version", "=", version).executeTakeFirst();
      return row && toVersion(row);
    },

    async delete(workspaceId, slug) {
      return db.transaction().execute(async (trx) => {
        const preset = await lockPreset(trx, workspaceId, slug);
        if (!preset) return false;
        await trx.deleteFrom("preset_versions").where("preset_id", "=", preset.id).execute();
        await trx.deleteFrom("presets").where("id", "=", preset.id).execute();
        return true;
      });
    },
  };
}

/** A unique-constraint violation: Postgres SQLSTATE 23505, SQLite SQLITE_CONSTRAINT_UNIQUE. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE") return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && message.includes("UNIQUE constraint failed");
}

function toVersion(row: Selectable<PresetVersionsTable>): PresetVersionRecord {
  return {
    id: row.id,
    presetId: row.preset_id,
    version: toNumber(row.version),
    config: parseObject(row.config),
    systemPrompt: row.system_prompt,
    creatorId: row.creator_id,
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

function toPreset(row: Selectable<PresetsTable>, version: Selectable<PresetVersionsTable>): PresetRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    status: row.status,
    statusUpdatedAt: toNumberOrNull(row.status_updated_at),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
    creatorUserId: row.creator_user_id,
    designatedVersionId: version.id,
    designatedVersion: toVersion(version),
  };
}

/** A JSON object column; anything else (never written by us) reads as an empty object. */
export function parseObject(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
