/** Key management: management keys only, scoped to the caller's workspace. */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import { hashSecret, labelOf, newSecret } from "../auth/key-material.ts";
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { RateLimitSchema, toRateLimitSetting } from "../config/routing-limits.ts";
import { errors } from "../errors.ts";
import { jsonResponse } from "../http/envelope.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import { limitFields } from "../limits/key-view.ts";
import { checkStorableText } from "../store/text.ts";
import type { ApiKeyRecord } from "../store/types.ts";
import { readOneWithSpending, readWithSpending } from "./key-spending.ts";
import { CacheSettingSchema, checkedSetting } from "../cache/setting-body.ts";
import { cacheConfigOf } from "../config/cache.ts";
import { keyView, type KeySpending } from "./key-view.ts";

const LimitReset = t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly"), t.Null()]);
const Limit = t.Union([t.Number({ minimum: 0 }), t.Null()]);

/** Per-key rate limit (README "Routing and limits"); null restores the config default. */
const RateLimit = t.Union([RateLimitSchema, t.Null()]);

/** Reference b9: whether what BYOK credentials paid counts against the key's limit (README "Bring your own keys"). */
const IncludeByok = t.Boolean();

/** The key's strict-mode default (README "Strict mode"); null (on update) gives it back to the config's. */
const Strict = t.Boolean();

const CreateKeyBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 256 }),
  /** The workspace the key belongs to (README "Workspaces"); default the caller's. Only the operator names another. */
  workspace_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  /** A management key of that workspace (only the operator makes one). */
  is_management_key: t.Optional(t.Boolean()),
  limit: t.Optional(Limit),
  limit_reset: t.Optional(LimitReset),
  expires_at: t.Optional(t.Union([t.String(), t.Null()])),
  rate_limit: t.Optional(RateLimit),
  include_byok_in_limit: t.Optional(IncludeByok),
  strict: t.Optional(Strict),
  /** The key's response-cache setting (README "Response cache"). */
  cache: t.Optional(CacheSettingSchema),
});

const PatchKeyBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  disabled: t.Optional(t.Boolean()),
  limit: t.Optional(Limit),
  limit_reset: t.Optional(LimitReset),
  rate_limit: t.Optional(RateLimit),
  include_byok_in_limit: t.Optional(IncludeByok),
  strict: t.Optional(t.Union([Strict, t.Null()])),
  /** null gives the key back to its workspace's setting. */
  cache: t.Optional(t.Union([CacheSettingSchema, t.Null()])),
});

const ListQuery = t.Object({
  offset: IntegerQuery("Keys to skip (0 or more)"),
  include_disabled: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])),
});

export function keyRoutes(deps: Deps, auth: Authenticator) {
  const view = async ({ record, spending }: { record: ApiKeyRecord; spending: KeySpending }) => ({
    ...keyView(record, spending),
    ...(await limitFields(deps.credits, record)),
  });

  /**
   * A key of the caller's workspace with its spending, or 404: another workspace's key reads as a missing one, and so
   * does an operator's key to a workspace's own management key (README "Workspaces").
   */
  const ownKey = async (principal: Principal, hash: string) => {
    const row = await readOneWithSpending(deps, hash);
    if (!row || !visibleTo(principal, row.record)) throw errors.notFound("API key not found");
    return row;
  };

  return new Elysia({ name: "routes:keys" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .post(
      "/keys",
      async ({ body, principal }) => {
        checkStorableText(body.name, "name");
        if (body.is_management_key && !principal.isOperator) {
          throw errors.forbidden("Only the operator's management keys can create management keys; a workspace's management key creates inference keys");
        }
        const expiresAt = parseExpiry(body.expires_at, deps.clock.now());
        const secret = newSecret();
        const record = await deps.store.keys.create({
          hash: hashSecret(secret),
          workspaceId: principal.workspaceId,
          name: body.name,
          label: labelOf(secret),
          isManagement: body.is_management_key === true,
          limit: body.limit ?? null,
          limitReset: body.limit_reset ?? null,
          expiresAt,
          rateLimit: body.rate_limit ? toRateLimitSetting(body.rate_limit) : null,
          includeByokInLimit: body.include_byok_in_limit ?? false,
          ...(body.strict !== undefined ? { strict: body.strict } : {}),
          ...(body.cache !== undefined ? { cache: checkedSetting(body.cache, "cache", cacheConfigOf(deps.config).maxTtlSeconds) } : {}),
        });
        return jsonResponse({ data: await view(await ownKey(principal, record.hash)), key: secret }, 201);
      },
      { body: CreateKeyBody, parse: "json", detail: { summary: "Create an inference API key", tags: ["keys"] } },
    )
    .get(
      "/keys",
      async ({ query, principal }) => {
        const rows = await readWithSpending(deps, () =>
          deps.store.keys.list(principal.workspaceId, {
            offset: integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
            limit: 100,
            includeDisabled: query.include_disabled === "true",
          }),
        );
        return { data: await Promise.all(rows.filter((row) => visibleTo(principal, row.record)).map(view)) };
      },
      { query: ListQuery, detail: { summary: "List API keys", tags: ["keys"] } },
    )
    .get("/keys/:hash", async ({ params, principal }) => ({ data: await view(await ownKey(principal, params.hash)) }), {
      detail: { summary: "Get an API key", tags: ["keys"] },
    })
    .patch(
      "/keys/:hash",
      async ({ params, body, principal }) => {
        checkStorableText(body.name, "name");
        await ownKey(principal, params.hash);
        const updated = await deps.store.keys.update(params.hash, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
          ...(body.limit !== undefined ? { limit: body.limit } : {}),
          ...(body.limit_reset !== undefined ? { limitReset: body.limit_reset } : {}),
          ...(body.rate_limit !== undefined ? { rateLimit: body.rate_limit && toRateLimitSetting(body.rate_limit) } : {}),
          ...(body.include_byok_in_limit !== undefined ? { includeByokInLimit: body.include_byok_in_limit } : {}),
          ...(body.strict !== undefined ? { strict: body.strict } : {}),
          ...(body.cache !== undefined ? { cache: body.cache && checkedSetting(body.cache, "cache", cacheConfigOf(deps.config).maxTtlSeconds) } : {}),
        });
        if (!updated) throw errors.notFound("API key not found");
        await deps.keyCache.invalidate(params.hash);
        // Read again with its spending, consistently with the ledger.
        return { data: await view(await ownKey(principal, params.hash)) };
      },
      { body: PatchKeyBody, parse: "json", detail: { summary: "Update an API key", tags: ["keys"] } },
    )
    .delete(
      "/keys/:hash",
      async ({ params, principal }) => {
        await ownKey(principal, params.hash);
        await deps.store.keys.delete(params.hash);
        await deps.keyCache.invalidate(params.hash);
        return { deleted: true };
      },
      { detail: { summary: "Delete an API key", tags: ["keys"] } },
    );
}

/**
 * Whether the caller sees a key: one of the workspace it acts in (the operator names another with `?workspace_id=`),
 * and never an operator's key when the caller is a workspace's own manager.
 */
function visibleTo(principal: Principal, record: ApiKeyRecord): boolean {
  return record.workspaceId === principal.workspaceId && (principal.isOperator || record.isOperator !== true);
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}))?$/;

function parseExpiry(value: string | null | undefined, now: number): number | null {
  if (value === undefined || value === null) return null;
  // ISO 8601 only (a date, or a date-time with seconds and a zone): Date.parse would also take "March 7" or "0".
  const at = ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw errors.invalid("expires_at: not an ISO 8601 timestamp", { param: "expires_at" });
  if (at <= now) throw errors.invalid("expires_at: must be in the future");
  return at;
}
