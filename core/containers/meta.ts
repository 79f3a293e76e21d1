/**
 * A container's bookkeeping (`meta.json` next to its files): who owns it and its idle timer. Kept as a file in the
 * container's directory, not in the database, so it lives and dies with the files and a shared directory is the
 * only thing nodes must share.
 */

/** `sleep_after_seconds` bounds. */
export const DEFAULT_SLEEP_SECONDS = 900;
export const MAX_SLEEP_SECONDS = 2_592_000;

export interface ContainerMeta {
  id: string;
  workspaceId: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** Unix milliseconds of the last command or tool call; the idle timer runs from here. */
  lastUsedAt: number;
  sleepAfterSeconds: number;
}

/** Unix milliseconds at which the container expires unless used again. */
export function expiresAtMs(meta: ContainerMeta): number {
  return meta.lastUsedAt + meta.sleepAfterSeconds * 1000;
}

export function serializeMeta(meta: ContainerMeta): string {
  return JSON.stringify({
    version: 1,
    id: meta.id,
    workspace_id: meta.workspaceId,
    created_at_ms: meta.createdAt,
    last_used_at_ms: meta.lastUsedAt,
    sleep_after_seconds: meta.sleepAfterSeconds,
  });
}

/** The metadata, or undefined when the text is not a metadata file we wrote (treated like a missing one). */
export function parseMeta(text: string): ContainerMeta | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { id, workspace_id, created_at_ms, last_used_at_ms, sleep_after_seconds } = raw ?? {};
  if (typeof id !== "string" || typeof workspace_id !== "string") return undefined;
  if (![created_at_ms, last_used_at_ms, sleep_after_seconds].every((n) => typeof n === "number" && Number.isFinite(n))) return undefined;
  return {
    id,
    workspaceId: workspace_id,
    createdAt: created_at_ms as number,
    lastUsedAt: last_used_at_ms as number,
    sleepAfterSeconds: sleep_after_seconds as number,
  };
}
