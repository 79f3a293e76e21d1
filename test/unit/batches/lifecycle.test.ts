/** core/batches/lifecycle.ts on a real SQLite store: every transition of the README's table, and crash resumption. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KeyCache } from "../../../core/auth/key-cache.ts";
import { advanceBatches, COMPLETION_WINDOW_MS, RETENTION_MS } from "../../../core/batches/lifecycle.ts";
import { openStore } from "../../../core/store/connect.ts";
import type { Store } from "../../../core/store/types.ts";
import type { ApiKeyRecord } from "../../../core/store/types/keys.ts";
import { newBatch } from "./helpers.ts";

const NOW = 10_000_000;
let store: Store;
const keys = new Map<string, ApiKeyRecord>();
const keyCache = { get: async (hash: string) => keys.get(hash) } as unknown as KeyCache;
const deps = () => ({ store, keyCache, clock: { now: () => NOW } });
const key = (hash: string, patch: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ hash, workspaceId: "ws-1", name: "k", label: "l", isManagement: false, disabled: false, limit: null, limitReset: null, usage: 0, createdAt: 0, updatedAt: 0, expiresAt: null, ...patch });

beforeAll(async () => {
  store = await openStore("sqlite://:memory:");
  keys.set("good", key("good"));
  keys.set("expired", key("expired", { expiresAt: NOW - 1 }));
});
afterAll(async () => store.close());

const completedResult = (cost: number) => ({ status: "completed" as const, result: { body: { usage: { prompt_tokens: 2, completion_tokens: 3, cost } }, request_id: "g", status_code: 200 } });

describe("validating", () => {
  test("→ in_progress when the submitting key is valid", async () => {
    const batch = await store.batches.create(newBatch(2, { keyHash: "good", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await advanceBatches(deps(), NOW);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "in_progress", inProgressAt: NOW });
  });

  test("→ failed (code 401) when the key is gone or expired; every request fails and the counts are stored", async () => {
    for (const hash of ["missing", "expired"]) {
      const batch = await store.batches.create(newBatch(2, { keyHash: hash, createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
      await advanceBatches(deps(), NOW);
      expect(await store.batches.get(batch.id)).toMatchObject({ status: "failed", finalizedAt: NOW, error: { code: 401 }, requestCompleted: 0, requestFailed: 2 });
      const items = await store.batches.results(batch.id);
      expect(items.map((item) => item.error?.error_type)).toEqual(["authentication", "authentication"]);
    }
  });
});

describe("in_progress", () => {
  test("stays while requests are pending; → finalizing → completed with aggregates once all ended", async () => {
    const batch = await store.batches.create(newBatch(2, { keyHash: "good", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await advanceBatches(deps(), NOW);
    const claimed = await store.batches.claim(batch.id, "w", 2, NOW, 60_000);
    await store.batches.finish(claimed[0]!.id, "w", completedResult(0.5), NOW);
    await advanceBatches(deps(), NOW);
    expect((await store.batches.get(batch.id))?.status).toBe("in_progress");
    await store.batches.finish(claimed[1]!.id, "w", { status: "failed", error: { message: "boom" } }, NOW);
    await advanceBatches(deps(), NOW);
    const done = await store.batches.get(batch.id);
    expect(done).toMatchObject({ status: "completed", finalizingAt: NOW, finalizedAt: NOW, requestCompleted: 1, requestFailed: 1, cost: 0.5 });
    expect(done?.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5, cost: 0.5 });
  });

  test("a batch left in finalizing by a crashed process is completed by the next pass", async () => {
    const batch = await store.batches.create(newBatch(1, { keyHash: "good", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await advanceBatches(deps(), NOW);
    const [only] = await store.batches.claim(batch.id, "w", 1, NOW, 60_000);
    await store.batches.finish(only!.id, "w", completedResult(0.1), NOW);
    await store.batches.transition(batch.id, ["in_progress"], "finalizing", { finalizingAt: NOW });
    await advanceBatches(deps(), NOW);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "completed", requestCompleted: 1 });
  });

  test("past the completion window → expired; unfinished requests fail with the expiry error and a late ending is refused", async () => {
    const batch = await store.batches.create(newBatch(3, { keyHash: "good", createdAt: NOW, expiresAt: NOW + 1_000 }));
    await advanceBatches(deps(), NOW);
    const [first, second] = await store.batches.claim(batch.id, "w", 2, NOW, 60_000);
    await store.batches.finish(first!.id, "w", completedResult(0.2), NOW);
    await advanceBatches({ ...deps(), clock: { now: () => NOW + 1_000 } }, NOW + 1_000);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "expired", finalizedAt: NOW + 1_000, requestCompleted: 1, requestFailed: 2 });
    expect(await store.batches.finish(second!.id, "w", completedResult(0.2), NOW + 1_001)).toBe(false);
    expect((await store.batches.results(batch.id)).map((item) => item.error?.error_type ?? "ok")).toEqual(["ok", "timeout", "timeout"]);
  });
});

describe("cancelling", () => {
  test("waits for running requests with a live lease; a crashed worker's (lease run out) do not block it", async () => {
    const batch = await store.batches.create(newBatch(3, { keyHash: "good", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await advanceBatches(deps(), NOW);
    const [running] = await store.batches.claim(batch.id, "w", 1, NOW, 1_000);
    await store.batches.transition(batch.id, ["in_progress"], "cancelling", { cancellingAt: NOW }, { statuses: ["pending"], error: { message: "cancelled" }, now: NOW });
    await advanceBatches(deps(), NOW + 500);
    expect((await store.batches.get(batch.id))?.status).toBe("cancelling");
    await advanceBatches(deps(), NOW + 1_001);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "cancelled", cancelledAt: NOW + 1_001, requestCompleted: 0, requestFailed: 3 });
    expect(await store.batches.finish(running!.id, "w", completedResult(0.1), NOW + 1_002)).toBe(false);
  });
});

describe("retention", () => {
  test("items of terminal batches older than 30 days are purged, only on passes that purge", async () => {
    const batch = await store.batches.create(newBatch(1, { keyHash: "missing", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await advanceBatches(deps(), NOW);
    const later = NOW + RETENTION_MS;
    await advanceBatches(deps(), later, false);
    expect((await store.batches.results(batch.id)).length).toBe(1);
    await advanceBatches(deps(), later, true);
    expect(await store.batches.results(batch.id)).toEqual([]);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "failed", purgedAt: later, requestFailed: 1 });
  });
});

describe("several workers at once", () => {
  test("concurrent passes make each move once", async () => {
    const batch = await store.batches.create(newBatch(1, { keyHash: "good", createdAt: NOW, expiresAt: NOW + COMPLETION_WINDOW_MS }));
    await Promise.all([advanceBatches(deps(), NOW), advanceBatches(deps(), NOW), advanceBatches(deps(), NOW)]);
    expect(await store.batches.get(batch.id)).toMatchObject({ status: "in_progress", inProgressAt: NOW });
  });
});
