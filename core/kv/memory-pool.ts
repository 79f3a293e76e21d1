/**
 * The memory kv's byte-bounded pools (core/kv/kv.ts `poolPut`): the reference semantics of the Redis scripts in
 * redis-pool.ts. A min-heap by expiry finds the entries to drop first without scanning the pool.
 */
import type { PoolEntry, PoolPut } from "./kv.ts";

interface Held {
  value: string;
  bytes: number;
  expiresAt: number;
  groups: readonly string[];
}

interface HeapNode {
  key: string;
  expiresAt: number;
}

/** One pool: its entries, their groups, its byte total and the heap of expiries (stale nodes skipped lazily). */
class Pool {
  readonly entries = new Map<string, Held>();
  readonly groups = new Map<string, Set<string>>();
  bytes = 0;
  private readonly heap: HeapNode[] = [];

  get(key: string, now: number): string | null {
    const held = this.entries.get(key);
    if (!held) return null;
    if (held.expiresAt <= now) {
      this.remove(key);
      return null;
    }
    return held.value;
  }

  put(entry: PoolEntry, maxBytes: number, now: number): PoolPut {
    const bytes = Buffer.byteLength(entry.value);
    if (bytes > maxBytes) return { stored: false, bytes, evicted: 0 };
    this.remove(entry.key);
    let evicted = 0;
    // Expired entries first (they sit at the top of the heap), then the live ones nearest their expiry.
    for (;;) {
      const top = this.heap[0];
      if (!top) break;
      const held = this.entries.get(top.key);
      if (!held || held.expiresAt !== top.expiresAt) {
        this.pop();
        continue;
      }
      if (held.expiresAt > now && this.bytes + bytes <= maxBytes) break;
      this.pop();
      this.remove(top.key);
      if (held.expiresAt > now) evicted++;
    }
    const expiresAt = now + entry.ttlMs;
    this.entries.set(entry.key, { value: entry.value, bytes, expiresAt, groups: [...entry.groups] });
    this.bytes += bytes;
    for (const group of entry.groups) {
      let members = this.groups.get(group);
      if (!members) this.groups.set(group, (members = new Set()));
      members.add(entry.key);
    }
    this.push({ key: entry.key, expiresAt });
    return { stored: true, bytes, evicted };
  }

  drop(group: string): number {
    const members = this.groups.get(group);
    if (!members) return 0;
    const keys = [...members];
    for (const key of keys) this.remove(key);
    return keys.length;
  }

  remove(key: string): void {
    const held = this.entries.get(key);
    if (!held) return;
    this.entries.delete(key);
    this.bytes -= held.bytes;
    for (const group of held.groups) {
      const members = this.groups.get(group);
      members?.delete(key);
      if (members?.size === 0) this.groups.delete(group);
    }
  }

  private push(node: HeapNode): void {
    const heap = this.heap;
    heap.push(node);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.expiresAt <= node.expiresAt) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = node;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.expiresAt < heap[left]!.expiresAt ? right : left;
      if (heap[child]!.expiresAt >= last.expiresAt) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}

/** Every pool of one memory kv, by name. */
export class MemoryPools {
  private readonly pools = new Map<string, Pool>();

  private pool(name: string): Pool {
    let pool = this.pools.get(name);
    if (!pool) this.pools.set(name, (pool = new Pool()));
    return pool;
  }

  get(name: string, key: string, now: number): string | null {
    return this.pools.get(name)?.get(key, now) ?? null;
  }

  put(name: string, entry: PoolEntry, maxBytes: number, now: number): PoolPut {
    return this.pool(name).put(entry, maxBytes, now);
  }

  drop(name: string, group: string): number {
    return this.pools.get(name)?.drop(group) ?? 0;
  }

  bytes(name: string, now: number): number {
    const pool = this.pools.get(name);
    if (!pool) return 0;
    for (const [key, held] of pool.entries) if (held.expiresAt <= now) pool.remove(key);
    return pool.bytes;
  }

  clear(): void {
    this.pools.clear();
  }
}
