/** Creating, renewing and looking up containers; the idle timer of `sleep_after_seconds` lives here. */
import { ContainerError } from "./contract.ts";
import type { ContainerContext } from "./context.ts";
import type { ContainerPaths } from "./directory.ts";
import { DEFAULT_SLEEP_SECONDS, expiresAtMs, MAX_SLEEP_SECONDS, type ContainerMeta } from "./meta.ts";

/** A container opened in this process: its metadata is updated in place as it is used. */
export interface ContainerState {
  meta: ContainerMeta;
  paths: ContainerPaths;
}

/** `sleep_after_seconds` as asked (undefined: keep the container's, or the default for a new one). */
export function checkSleep(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_SLEEP_SECONDS) {
    throw new ContainerError(`sleep_after_seconds must be an integer from 1 to ${MAX_SLEEP_SECONDS}`);
  }
  return value;
}

export function isExpired(ctx: ContainerContext, meta: ContainerMeta): boolean {
  return ctx.clock.now() >= expiresAtMs(meta);
}

/** A fresh container (an existing directory of that id keeps its files: callers remove first when they must not). */
export async function createContainer(ctx: ContainerContext, workspaceId: string, id: string, sleep: number | undefined): Promise<ContainerState> {
  const now = ctx.clock.now();
  const meta: ContainerMeta = { id, workspaceId, createdAt: now, lastUsedAt: now, sleepAfterSeconds: sleep ?? DEFAULT_SLEEP_SECONDS };
  await ctx.directory.create(meta);
  return { meta, paths: ctx.directory.paths(workspaceId, id) };
}

/** Restarts the idle timer (every command and tool call); a ContainerError when the container was removed meanwhile. */
export async function renew(ctx: ContainerContext, state: ContainerState, sleep?: number): Promise<void> {
  const meta = { ...state.meta, lastUsedAt: ctx.clock.now(), sleepAfterSeconds: sleep ?? state.meta.sleepAfterSeconds };
  if (!(await ctx.directory.writeMeta(meta))) throw new ContainerError(`container ${meta.id} no longer exists (deleted or expired)`);
  state.meta = meta;
}

/**
 * The workspace's live container `id`, renewed; a ContainerError naming the reason otherwise. Another workspace's
 * container gets the same answer as an unknown one: its existence is not revealed.
 */
export async function reuseContainer(ctx: ContainerContext, workspaceId: string, id: string, sleep: number | undefined): Promise<ContainerState> {
  const meta = await ctx.directory.readMeta(workspaceId, id);
  if (!meta) throw new ContainerError(`container ${id} was not found in this workspace (unknown, deleted, or expired and removed)`);
  if (isExpired(ctx, meta)) {
    await ctx.directory.remove(workspaceId, id).catch(() => undefined);
    throw new ContainerError(
      `container ${id} expired: it was idle for more than ${meta.sleepAfterSeconds} seconds and its files were removed; use {"type": "container_auto"} for a new container`,
    );
  }
  const state = { meta, paths: ctx.directory.paths(workspaceId, id) };
  await renew(ctx, state, sleep);
  return state;
}

/** The session's container: reused while live; once expired its files go and a fresh one takes the same id. */
export async function sessionContainer(ctx: ContainerContext, workspaceId: string, id: string, sleep: number | undefined): Promise<ContainerState> {
  const meta = await ctx.directory.readMeta(workspaceId, id);
  if (meta && !isExpired(ctx, meta)) {
    const state = { meta, paths: ctx.directory.paths(workspaceId, id) };
    await renew(ctx, state, sleep);
    return state;
  }
  if (meta) await ctx.directory.remove(workspaceId, id);
  return createContainer(ctx, workspaceId, id, sleep);
}
