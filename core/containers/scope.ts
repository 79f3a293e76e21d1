/**
 * One request's containers (ContainerScope): which container `container_auto`, `container_reference` and `restart`
 * name, and which ones the request used (the Messages result's `container`).
 */
import { ContainerError, type ContainerHandle, type ContainerOwner, type ContainerRequest, type ContainerScope } from "./contract.ts";
import type { ContainerContext } from "./context.ts";
import { DirectoryContainerHandle } from "./handle.ts";
import { isContainerId, newContainerId, restartedId, sessionContainerId } from "./ids.ts";
import { checkSleep, createContainer, reuseContainer, sessionContainer, type ContainerState } from "./lifecycle.ts";
import { expiresAtMs } from "./meta.ts";

export class RequestScope implements ContainerScope {
  /** The request's `container_auto` container, fixed at first use (so every tool call of the request shares it). */
  private autoId: string | undefined;
  /** base id → the container that replaced it after `restart: true`, for the rest of the request. */
  private readonly replaced = new Map<string, string>();
  /** Opened containers, in first-use order. */
  private readonly opened = new Map<string, ContainerState>();
  /** Opens run one after another: concurrent tool calls must not both create the request's container. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: ContainerContext,
    private readonly owner: ContainerOwner,
  ) {}

  open(request: ContainerRequest): Promise<ContainerHandle> {
    const next = this.queue.then(() => this.openNow(request));
    this.queue = next.catch(() => undefined);
    return next;
  }

  used(): ReadonlyArray<{ id: string; expiresAt: number }> {
    return [...this.opened.values()].map(({ meta }) => ({ id: meta.id, expiresAt: Math.floor(expiresAtMs(meta) / 1000) }));
  }

  private async openNow(request: ContainerRequest): Promise<ContainerHandle> {
    const sleep = checkSleep(request.sleepAfterSeconds);
    const { workspaceId, sessionKey } = this.owner;
    const reference = request.environment?.type === "container_reference" ? checkReference(request.environment.container_id) : undefined;
    const base = reference ?? (this.autoId ??= sessionKey !== undefined ? sessionContainerId(workspaceId, sessionKey) : newContainerId());
    const current = this.replaced.get(base) ?? base;
    let state: ContainerState;
    if (request.restart) {
      // Restarting a reference still needs the reference to be this workspace's live container.
      if (reference !== undefined) await reuseContainer(this.ctx, workspaceId, current, undefined);
      state = await createContainer(this.ctx, workspaceId, restartedId(base), sleep);
      this.replaced.set(base, state.meta.id);
    } else if (reference !== undefined || current !== base || this.opened.has(current)) {
      state = await reuseContainer(this.ctx, workspaceId, current, sleep);
    } else if (sessionKey !== undefined) {
      state = await sessionContainer(this.ctx, workspaceId, current, sleep);
    } else {
      state = await createContainer(this.ctx, workspaceId, current, sleep);
    }
    return new DirectoryContainerHandle(this.ctx, this.remember(state));
  }

  /** One state per container, so every handle of the request renews the same timer `used()` reports. */
  private remember(state: ContainerState): ContainerState {
    const known = this.opened.get(state.meta.id);
    if (!known) {
      this.opened.set(state.meta.id, state);
      return state;
    }
    known.meta = state.meta;
    return known;
  }
}

function checkReference(id: unknown): string {
  if (typeof id !== "string" || !isContainerId(id)) {
    throw new ContainerError(`container_reference: ${JSON.stringify(id)} is not a container id (ids look like ctr_…, sess_… or …-r…)`);
  }
  return id;
}
