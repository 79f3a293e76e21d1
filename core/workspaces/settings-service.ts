/**
 * Each workspace's settings and budgets, cached (one store read per workspace per second at most), and changes seen
 * by every process at once: a write through the management API drops this process's cache and publishes on the kv,
 * as guardrail and key changes do; the short expiry bounds the delay even if a message were lost. A request reads
 * its workspace's entry synchronously when cached (`peek`), so the default workspace with nothing set costs a map
 * look-up. One service per gateway (per `deps`), made on first use.
 */
import type { Deps } from "../deps.ts";
import type { WorkspaceBudget, WorkspaceSettings } from "../store/types/workspaces.ts";
import { WorkspaceBudgets } from "./budgets.ts";
import { ByokCipher } from "../byok/cipher.ts";
import type { ByokEntry } from "../byok/credentials.ts";
import type { ByokRecord } from "../store/types/byok.ts";

const CHANNEL = "gateway:workspaces:changed";
const TTL_MS = 1_000;

/** What a request of a workspace needs to know about it; `undefined` fields are unset. */
export interface WorkspaceState {
  settings: WorkspaceSettings;
  budgets: readonly WorkspaceBudget[];
  includeByokInBudgets: boolean;
  /** Its provider credentials and its keys', decrypted (README "Bring your own keys"); disabled ones left out. */
  byok: readonly ByokEntry[];
  /** Whether anything is set that a request must apply (false: the hot path skips the workspace entirely). */
  active: boolean;
}

type ServiceDeps = Pick<Deps, "kv" | "store" | "ledger" | "clock" | "logger" | "config">;

const NONE: WorkspaceState = Object.freeze({ settings: {}, budgets: [], includeByokInBudgets: false, byok: [], active: false });

export class WorkspaceSettingsService {
  readonly budgets: WorkspaceBudgets;
  private readonly cipher: ByokCipher | undefined;
  private readonly states = new Map<string, { state: WorkspaceState; until: number }>();
  /** Reads in flight, one per workspace: the requests that find the entry expired at once share one read. */
  private readonly reading = new Map<string, Promise<WorkspaceState>>();
  private version = 0;
  private subscribed: Promise<void> | undefined;

  constructor(private readonly deps: ServiceDeps) {
    this.budgets = new WorkspaceBudgets(deps);
    this.cipher = deps.config.secretKey ? new ByokCipher(deps.config.secretKey) : undefined;
  }

  /** The cached state of a workspace, if still fresh. */
  peek(workspaceId: string): WorkspaceState | undefined {
    const hit = this.states.get(workspaceId);
    return hit && hit.until > this.deps.clock.now() ? hit.state : undefined;
  }

  /** The state of a workspace (from the cache when fresh). */
  stateOf(workspaceId: string): Promise<WorkspaceState> {
    const cached = this.peek(workspaceId);
    if (cached) return Promise.resolve(cached);
    let read = this.reading.get(workspaceId);
    if (!read) {
      read = this.read(workspaceId).finally(() => this.reading.delete(workspaceId));
      this.reading.set(workspaceId, read);
    }
    return read;
  }

  private async read(workspaceId: string): Promise<WorkspaceState> {
    await this.subscribe();
    const version = this.version;
    const hit = this.states.get(workspaceId);
    let state: WorkspaceState;
    try {
      const store = this.deps.store;
      const [workspace, budgets, credentials] = await Promise.all([store.workspaces.get(workspaceId), store.workspaces.budgets(workspaceId), store.byok.all(workspaceId)]);
      state = !workspace
        ? NONE
        : {
            settings: workspace.settings,
            budgets,
            includeByokInBudgets: workspace.includeByokInBudgets,
            byok: credentials.filter((c) => !c.disabled).map((c) => this.entryOf(c)),
            active: budgets.length > 0 || Object.keys(workspace.settings).length > 0,
          };
    } catch (error) {
      // The store is down: the last state this process knew still applies (never none); without one, the 503.
      if (!hit) throw error;
      state = hit.state;
    }
    if (version === this.version) {
      if (this.states.size > 10_000) this.states.clear();
      this.states.set(workspaceId, { state, until: this.deps.clock.now() + TTL_MS });
    }
    return state;
  }

  private entryOf(c: ByokRecord): ByokEntry {
    return { id: c.id, provider: c.provider, keyHash: c.keyHash, secret: this.cipher?.decrypt(c.secret, c.id), byokOnly: c.byokOnly, allowedModels: c.allowedModels };
  }

  /** After a change: drops this process's cache and tells every other process to do the same. */
  async invalidate(workspaceId: string): Promise<void> {
    this.drop();
    await this.subscribe();
    await this.deps.kv.publish(CHANNEL, workspaceId);
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= this.deps.kv.subscribe(CHANNEL, () => this.drop()).catch((err: unknown) => {
      this.subscribed = undefined;
      this.deps.logger.warn({ err }, "workspaces: change notifications unavailable; cached settings expire within 1 s");
    });
    return this.subscribed;
  }

  private drop(): void {
    this.version++;
    this.states.clear();
  }
}

const services = new WeakMap<object, WorkspaceSettingsService>();

/** The gateway's workspace settings service (one per `deps`). */
export function workspaceSettingsOf(deps: ServiceDeps): WorkspaceSettingsService {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = new WorkspaceSettingsService(deps)));
  return service;
}
