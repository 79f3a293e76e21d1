/**
 * The `cache` setting as keys and presets carry it (`{"enabled": true, "ttl_seconds": N}`; a preset may also hold the
 * peer's `cache_enabled` / `cache_ttl_seconds`), README "Response cache".
 */
import { t } from "elysia";
import { errors } from "../errors.ts";
import type { CacheSetting } from "./setting.ts";

/** The body of a key's `cache` (its TTL also checked against `cache.max_ttl_seconds` by `checkedSetting`). */
export const CacheSettingSchema = t.Object(
  { enabled: t.Boolean(), ttl_seconds: t.Optional(t.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);

/** A validated body as the setting, or a 400 naming `field` when its TTL is longer than the operator allows. */
export function checkedSetting(body: { enabled: boolean; ttl_seconds?: number }, field: string, maxTtlSeconds: number): CacheSetting {
  const ttl = body.ttl_seconds;
  if (ttl !== undefined && ttl > maxTtlSeconds) throw errors.invalid(`${field}.ttl_seconds: must be at most ${maxTtlSeconds} (cache.max_ttl_seconds), got ${ttl}`, { param: `${field}.ttl_seconds` });
  return ttl === undefined ? { enabled: body.enabled } : { enabled: body.enabled, ttlSeconds: ttl };
}

/** The setting as the API shows it. */
export function settingView(setting: CacheSetting): { enabled: boolean; ttl_seconds?: number } {
  return setting.ttlSeconds === undefined ? { enabled: setting.enabled } : { enabled: setting.enabled, ttl_seconds: setting.ttlSeconds };
}

/**
 * A preset config's setting, when it has one: its `cache` object, else the peer's two keys. Presets are stored as
 * sent, so what is not a boolean and a whole number of seconds is ignored here rather than failing every request.
 */
export function presetSetting(config: Record<string, unknown>): CacheSetting | undefined {
  const cache = config.cache;
  const object = typeof cache === "object" && cache !== null ? (cache as Record<string, unknown>) : undefined;
  const enabled = object ? object.enabled : config.cache_enabled;
  if (typeof enabled !== "boolean") return undefined;
  const ttl = object ? object.ttl_seconds : config.cache_ttl_seconds;
  return Number.isInteger(ttl) && (ttl as number) >= 1 ? { enabled, ttlSeconds: ttl as number } : { enabled };
}
