/**
 * Gauges read when Prometheus scrapes, not kept up to date per request: open streams, breaker states, the batch
 * queue, memory. Reading them costs the request path nothing. A store that cannot answer leaves the batch gauges
 * out of that scrape (a scrape must not fail or hang because the database is down).
 */
import { Gauge, type Registry } from "prom-client";
import type { Deps } from "../../deps.ts";
import { openStreamCount } from "../../http/sse.ts";
import { CACHE_POOL } from "../../cache/key.ts";
import { profileOf } from "../../routing/profile.ts";
import type { BatchItemStatus } from "../../store/types.ts";

/** The batch gauges read at most this many active batches per scrape (each costs one small count query). */
const MAX_BATCHES_READ = 200;
/** A scrape waits this long for the store before it leaves the batch gauges out. */
const STORE_TIMEOUT_MS = 1_000;

const BREAKER_STATES = ["closed", "open", "half-open"] as const;

export function addCollectors(registry: Registry, deps: Deps): void {
  const registers = [registry];
  new Gauge({
    name: "gateway_open_streams",
    help: "Server-sent event streams open to clients now.",
    registers,
    collect() {
      this.set(openStreamCount());
    },
  });
  new Gauge({
    name: "gateway_breaker_state",
    help: "Circuit breaker of each endpoint: 1 for its current state (closed, open, half-open), 0 for the others.",
    labelNames: ["model", "provider", "state"],
    registers,
    collect() {
      const { health } = deps.routing;
      for (const model of deps.catalog.list()) {
        for (const endpoint of model.endpoints) {
          const state = health.stateOf(profileOf(endpoint).key);
          for (const s of BREAKER_STATES) this.set({ model: model.id, provider: endpoint.provider.id, state: s }, s === state ? 1 : 0);
        }
      }
    },
  });
  new Gauge({
    name: "gateway_batch_items_running_local",
    help: "Batch requests this process is running now.",
    registers,
    collect() {
      this.set(deps.batchWorker?.runningItems ?? 0);
    },
  });
  new Gauge({
    name: "gateway_batch_queue_items",
    help: "Requests of unfinished batches (every process) by status: pending is the queue depth.",
    labelNames: ["status"],
    registers,
    async collect() {
      this.reset();
      const counts = await withTimeout(batchCounts(deps), STORE_TIMEOUT_MS).catch(() => undefined);
      if (!counts) return;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "gateway_response_cache_bytes",
    help: "Bytes the response cache holds (every process: the kv's one pool; expired entries count until a write drops them).",
    registers,
    async collect() {
      const bytes = await withTimeout(deps.kv.poolBytes(CACHE_POOL), STORE_TIMEOUT_MS).catch(() => undefined);
      if (bytes !== undefined) this.set(bytes);
    },
  });
  new Gauge({
    name: "gateway_process_resident_memory_bytes",
    help: "Resident set size of the gateway process.",
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: "gateway_process_heap_bytes",
    help: "JavaScript heap of the gateway process (used, total).",
    labelNames: ["kind"],
    registers,
    collect() {
      const memory = process.memoryUsage();
      this.set({ kind: "used" }, memory.heapUsed);
      this.set({ kind: "total" }, memory.heapTotal);
    },
  });
  new Gauge({
    name: "gateway_usage_ledger_pending_records",
    help: "Usage records not yet written to the database (grows during a database outage).",
    registers,
    collect() {
      this.set(deps.ledger.pendingCount());
    },
  });
}

/** Items of the active batches by status (every process shares the database, so this is the whole queue). */
async function batchCounts(deps: Deps): Promise<Record<BatchItemStatus, number>> {
  const active = await deps.store.batches.byStatus(["validating", "in_progress", "cancelling", "finalizing"], MAX_BATCHES_READ);
  const total: Record<BatchItemStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0 };
  for (const batch of active) {
    const counts = await deps.store.batches.counts(batch.id);
    for (const status of Object.keys(total) as BatchItemStatus[]) total[status] += counts[status];
  }
  return total;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
