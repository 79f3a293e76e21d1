/**
 * The places where commands run, shared fairly between workspaces (README "Containers", Sandboxes). `size` shared
 * slots, which one workspace alone may fill, plus one spare slot that only a workspace with nothing running may take:
 * a workspace that keeps every shared slot busy never makes another workspace's first command wait. When a slot
 * frees, it goes to the waiting workspace holding the fewest slots (ties: the one served longest ago), so a workspace
 * that arrives while another holds everything gets the next slots until their shares are even. Within a workspace,
 * commands start in arrival order. A command that waits longer than `maxWaitMs` is refused with SandboxBusyError.
 *
 * Each slot has an index (0 … size, the spare last): the bwrap backend runs a slot's commands as a uid of its own.
 */

/** A command that waited its whole `sandbox.queue_timeout_ms` for a slot; the message is what the model sees. */
export class SandboxBusyError extends Error {
  override readonly name = "SandboxBusyError";
}

/** Slots in all for `size` shared ones: the spare included (what a backend must be able to run at once). */
export function slotCapacity(size: number): number {
  return size + 1;
}

export interface SlotLease {
  /** 0 … size (size is the spare slot). */
  readonly index: number;
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

export interface SlotRequest {
  /** Whose share the command counts against: the container's workspace. */
  tenant: string;
  signal?: AbortSignal;
  /** A shared slot to take when it is free (the bwrap backend's last slot for the container: its files' owner). */
  preferred?: number;
}

interface Waiter {
  request: SlotRequest;
  grant(index: number): void;
  refuse(reason: Error): void;
}

interface Tenant {
  held: number;
  waiting: Waiter[];
  /** When it last got a slot (a counter, not a clock): ties go to the one served longest ago. */
  servedAt: number;
}

export class FairSlots {
  private readonly free: boolean[];
  private readonly tenants = new Map<string, Tenant>();
  private served = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly maxWaitMs: number,
  ) {
    this.free = Array.from({ length: slotCapacity(size) }, () => true);
  }

  /** Slots in all, the spare included: what a backend must be able to run at once. */
  get capacity(): number {
    return slotCapacity(this.size);
  }

  /** Resolves with a slot; rejects with SandboxBusyError after `maxWaitMs`, or with the signal's reason on abort. */
  acquire(request: SlotRequest): Promise<SlotLease> {
    const { signal } = request;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.reject(new Error("sandbox backend is closed"));
    return new Promise((resolve, reject) => {
      const tenant = this.tenant(request.tenant);
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const at = tenant.waiting.indexOf(waiter);
        if (at >= 0) tenant.waiting.splice(at, 1);
      };
      const giveUp = (reason: unknown) => {
        leave();
        this.forgetIdle(request.tenant);
        reject(reason);
      };
      const waiter: Waiter = {
        request,
        grant: (index) => {
          leave();
          resolve(this.lease(tenant, request.tenant, index));
        },
        refuse: giveUp,
      };
      const onAbort = () => giveUp(signal?.reason);
      const timer = setTimeout(() => {
        giveUp(
          new SandboxBusyError(
            `the sandbox is busy: the command waited ${this.maxWaitMs} ms (sandbox.queue_timeout_ms) for a free slot and did not run; try again later`,
          ),
        );
      }, this.maxWaitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      tenant.waiting.push(waiter);
      this.dispatch();
    });
  }

  /** Refuses every waiting command and any later one (the backend is shutting down). */
  close(): void {
    this.closed = true;
    for (const tenant of [...this.tenants.values()]) for (const waiter of [...tenant.waiting]) waiter.refuse(new Error("sandbox backend is closed"));
  }

  private tenant(name: string): Tenant {
    let tenant = this.tenants.get(name);
    if (!tenant) this.tenants.set(name, (tenant = { held: 0, waiting: [], servedAt: 0 }));
    return tenant;
  }

  /** A tenant with nothing held and nothing waiting is dropped: the map stays as small as the busy workspaces. */
  private forgetIdle(name: string): void {
    const tenant = this.tenants.get(name);
    if (tenant && tenant.held === 0 && tenant.waiting.length === 0) this.tenants.delete(name);
  }

  private lease(tenant: Tenant, name: string, index: number): SlotLease {
    this.free[index] = false;
    tenant.held++;
    tenant.servedAt = ++this.served;
    let released = false;
    return {
      index,
      release: () => {
        if (released) return;
        released = true;
        this.free[index] = true;
        tenant.held--;
        this.forgetIdle(name);
        this.dispatch();
      },
    };
  }

  /** Hands free slots to waiters until none can take one. */
  private dispatch(): void {
    for (;;) {
      const next = this.pickShared() ?? this.pickSpare();
      if (!next) return;
      next.waiter.grant(next.index);
    }
  }

  private pickShared(): { waiter: Waiter; index: number } | undefined {
    const anyFree = this.free.findIndex((free, index) => free && index < this.size);
    if (anyFree < 0) return undefined;
    const tenant = this.neediest(() => true);
    const waiter = tenant?.waiting[0];
    if (!waiter) return undefined;
    const preferred = waiter.request.preferred;
    const index = preferred !== undefined && preferred >= 0 && preferred < this.size && this.free[preferred] ? preferred : anyFree;
    return { waiter, index };
  }

  private pickSpare(): { waiter: Waiter; index: number } | undefined {
    if (!this.free[this.size]) return undefined;
    const waiter = this.neediest((tenant) => tenant.held === 0)?.waiting[0];
    return waiter ? { waiter, index: this.size } : undefined;
  }

  /** The waiting tenant holding the fewest slots, the one served longest ago among equals. */
  private neediest(eligible: (tenant: Tenant) => boolean): Tenant | undefined {
    let best: Tenant | undefined;
    for (const tenant of this.tenants.values()) {
      if (tenant.waiting.length === 0 || !eligible(tenant)) continue;
      if (!best || tenant.held < best.held || (tenant.held === best.held && tenant.servedAt < best.servedAt)) best = tenant;
    }
    return best;
  }
}
