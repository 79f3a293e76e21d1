/**
 * A short-lived cache of key records by hash, so the hot path does not hit the database per request.
 * Changes to a key (disable, delete, limit) invalidate it here and, through kv pub/sub, in every other process.
 */
import type { Kv } from "../kv/kv.ts";
import type { ApiKeyRecord, KeyRepo } from "../store/types/keys.ts";

const CHANNEL = "gateway:keys:changed";

export class KeyCache {
  private readonly entries = new Map<string, { record: ApiKeyRecord; until: number }>();
  /** Bumped by every invalidation, so a read that raced one does not cache what it read. */
  private invalidations = 0;

  constructor(
    private readonly repo: KeyRepo,
    private readonly kv: Kv,
    private readonly now: () => number,
    private readonly ttlMs = 5_000,
  ) {}

  /** Subscribes to invalidations from other processes. */
  async start(): Promise<void> {
    await this.kv.subscribe(CHANNEL, (hash) => this.drop(hash));
  }

  async get(hash: string): Promise<ApiKeyRecord | undefined> {
    const hit = this.entries.get(hash);
    const now = this.now();
    if (hit && hit.until > now) return hit.record;
    const before = this.invalidations;
    const record = await this.repo.findByHash(hash);
    if (record && before === this.invalidations) {
      // Bounded: only valid keys are cached, and a sweep drops stale entries when the map grows.
      if (this.entries.size > 10_000) this.sweep(now);
      this.entries.set(hash, { record, until: now + this.ttlMs });
    } else this.entries.delete(hash);
    return record;
  }

  /** Drops a key here and tells every other process to drop it too. */
  async invalidate(hash: string): Promise<void> {
    this.drop(hash);
    await this.kv.publish(CHANNEL, hash);
  }

  private drop(hash: string): void {
    this.invalidations++;
    this.entries.delete(hash);
  }

  private sweep(now: number): void {
    for (const [hash, entry] of this.entries) if (entry.until <= now) this.entries.delete(hash);
  }
}
