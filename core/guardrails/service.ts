/**
 * The guardrails of each key, compiled and cached (one store read per key per second at most), and changes seen by
 * every process at once: a write through the management API drops this process's cache and publishes on the kv, as
 * key changes do (core/auth/key-cache.ts); the short expiry bounds the delay even if a message were lost. One service
 * per gateway (per `deps`), made on first use.
 */
import type { Deps } from "../deps.ts";
import { GuardrailBudgets } from "./budgets.ts";
import { compilePolicy, type Policy } from "./policy.ts";

const CHANNEL = "gateway:guardrails:changed";
/** How long a compiled policy is used before the store is read again. */
const TTL_MS = 1_000;

type GuardrailDeps = Pick<Deps, "kv" | "store" | "ledger" | "clock" | "logger" | "config">;

export class GuardrailService {
  readonly budgets: GuardrailBudgets;
  private readonly policies = new Map<string, { policy: Policy | undefined; until: number }>();
  private readonly admissions = new Map<string, { admitted: boolean; until: number }>();
  /** Bumped by every invalidation, so a read that raced one does not cache what it read. */
  private version = 0;
  private subscribed: Promise<void> | undefined;

  constructor(private readonly deps: GuardrailDeps) {
    this.budgets = new GuardrailBudgets(deps);
  }

  /** The policy of a key, or undefined when no guardrail applies to it (the common case: nothing to do). */
  async policyFor(workspaceId: string, keyHash: string): Promise<Policy | undefined> {
    const now = this.deps.clock.now();
    const hit = this.policies.get(keyHash);
    if (hit && hit.until > now) return hit.policy;
    await this.subscribe();
    const version = this.version;
    let applied;
    try {
      applied = await this.deps.store.guardrails.applying(workspaceId, keyHash);
    } catch (error) {
      // The store is down: the last policy this process knew is still enforced (never none, which would let
      // everything through); without one the request fails with the store's 503.
      if (!hit) throw error;
      hit.until = now + TTL_MS;
      return hit.policy;
    }
    const policy = applied.length === 0 ? undefined : compilePolicy(applied);
    if (version === this.version) {
      if (this.policies.size > 10_000) this.sweep(this.policies, now);
      this.policies.set(keyHash, { policy, until: now + TTL_MS });
    }
    return policy;
  }

  /** Whether a key (or its workspace) is admitted to a beta feature through the management API. */
  async admitted(feature: string, workspaceId: string, keyHash: string): Promise<boolean> {
    const cacheKey = `${feature}\u0000${keyHash}`;
    const now = this.deps.clock.now();
    const hit = this.admissions.get(cacheKey);
    if (hit && hit.until > now) return hit.admitted;
    await this.subscribe();
    const version = this.version;
    const admitted = await this.deps.store.admissions.admitted(feature, workspaceId, keyHash);
    if (version === this.version) {
      if (this.admissions.size > 10_000) this.sweep(this.admissions, now);
      this.admissions.set(cacheKey, { admitted, until: now + TTL_MS });
    }
    return admitted;
  }

  /** After a change: drops what this process cached and tells every other process to do the same. */
  async invalidate(): Promise<void> {
    this.drop();
    await this.subscribe();
    await this.deps.kv.publish(CHANNEL, "*");
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= this.deps.kv.subscribe(CHANNEL, () => this.drop()).catch((err: unknown) => {
      // Without the channel, the expiry alone bounds how stale a policy can be; try again on the next read.
      this.subscribed = undefined;
      this.deps.logger.warn({ err }, "guardrails: change notifications unavailable; cached policies expire within 1 s");
    });
    return this.subscribed;
  }

  private drop(): void {
    this.version++;
    this.policies.clear();
    this.admissions.clear();
  }

  private sweep(map: Map<string, { until: number }>, now: number): void {
    for (const [key, entry] of map) if (entry.until <= now) map.delete(key);
  }
}

const services = new WeakMap<object, GuardrailService>();

/** The gateway's guardrail service (one per `deps`). */
export function guardrailsOf(deps: GuardrailDeps): GuardrailService {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = new GuardrailService(deps)));
  return service;
}
