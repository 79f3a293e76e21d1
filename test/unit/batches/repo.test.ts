/**
 * core/store/repos/batches.ts: atomic claims under a lease, exactly-once endings, conditional transitions, listing,
 * retention purge — on SQLite and (when configured) on Postgres with two handles claiming at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Store } from "../../../core/store/types.ts";
import type { BatchItemRecord } from "../../../core/store/types/batches.ts";
import { backends } from "../presets/backends.ts";
import { newBatch } from "./helpers.ts";

const T0 = 5_000_000;

for (const backend of backends) {
  describe.skipIf(backend.skip)(`batch repository: ${backend.label}`, () => {
    let a: Store;
    let b: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, close } = await backend.pair());
    });
    afterAll(async () => close?.());

    test("create stores batch and items together; counts by status", async () => {
      const batch = await a.batches.create(newBatch(3));
      expect(batch).toMatchObject({ status: "validating", requestTotal: 3, requestCompleted: null, error: null });
      expect(await a.batches.counts(batch.id)).toEqual({ pending: 3, running: 0, completed: 0, failed: 0 });
    });

    test("a claim takes at most its limit, lapsed claims first, in idx order; hasUnfinished turns false when all ended", async () => {
      const batch = await a.batches.create(newBatch(6));
      expect(await a.batches.hasUnfinished(batch.id)).toBe(true);
      const first = await a.batches.claim(batch.id, "gone", 2, T0, 1_000);
      expect(first.map((item) => item.idx)).toEqual([0, 1]);
      expect(await a.batches.counts(batch.id)).toEqual({ pending: 4, running: 2, completed: 0, failed: 0 });
      // After gone's lease: its two come first, then the lowest pending, and never more than asked.
      const next = await b.batches.claim(batch.id, "alive", 3, T0 + 2_000, 60_000);
      expect(next.map((item) => item.idx)).toEqual([0, 1, 2]);
      const rest = await b.batches.claim(batch.id, "alive", 10, T0 + 2_000, 60_000);
      expect(rest.map((item) => item.idx)).toEqual([3, 4, 5]);
      for (const item of [...next, ...rest]) {
        expect(await a.batches.hasUnfinished(batch.id)).toBe(true);
        await b.batches.finish(item.id, "alive", { status: "completed", result: { ok: true } }, T0 + 3_000);
      }
      expect(await a.batches.hasUnfinished(batch.id)).toBe(false);
    });

    test("concurrent claims from two handles never hand out the same item", async () => {
      const batch = await a.batches.create(newBatch(60));
      const claimed: BatchItemRecord[] = [];
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const store = i % 2 === 0 ? a : b;
          for (;;) {
            const got = await store.batches.claim(batch.id, `w${i}`, 3, T0, 60_000);
            if (got.length === 0) return;
            claimed.push(...got);
          }
        }),
      );
      expect(claimed.length).toBe(60);
      expect(new Set(claimed.map((item) => item.id)).size).toBe(60);
      expect(claimed.every((item) => item.status === "running" && item.attempts === 1)).toBe(true);
    });

    test("an expired lease is reclaimable; the old claimer can then no longer end the item", async () => {
      const batch = await a.batches.create(newBatch(1));
      const [first] = await a.batches.claim(batch.id, "crashed", 1, T0, 1_000);
      expect(first?.claimedUntil).toBe(T0 + 1_000);
      expect(await b.batches.claim(batch.id, "other", 1, T0 + 999, 1_000)).toEqual([]);
      const [again] = await b.batches.claim(batch.id, "other", 1, T0 + 1_001, 1_000);
      expect(again).toMatchObject({ id: first!.id, claimedBy: "other", attempts: 2 });
      expect(await a.batches.finish(first!.id, "crashed", { status: "completed", result: { late: true } }, T0 + 1_500)).toBe(false);
      expect(await b.batches.finish(first!.id, "other", { status: "completed", result: { ok: true } }, T0 + 1_600)).toBe(true);
      // Ended exactly once: a second ending by anyone is refused.
      expect(await b.batches.finish(first!.id, "other", { status: "failed", error: { message: "x" } }, T0 + 1_700)).toBe(false);
      const [item] = await a.batches.results(batch.id);
      expect(item).toMatchObject({ status: "completed", result: { ok: true }, error: null, finishedAt: T0 + 1_600 });
      // A finished item is never claimable again, however late.
      expect(await b.batches.claim(batch.id, "later", 5, T0 + 10_000_000, 1_000)).toEqual([]);
    });

    test("a worker never claims its own items again, even past their lease; without takeOver only pending items", async () => {
      const batch = await a.batches.create(newBatch(2));
      const [mine] = await a.batches.claim(batch.id, "w", 1, T0, 1_000);
      // Past the lease: the owner still holds it (it may be waiting for the store to take its result).
      const again = await a.batches.claim(batch.id, "w", 5, T0 + 5_000, 1_000);
      expect(again.map((item) => item.id)).not.toContain(mine!.id);
      expect(again).toHaveLength(1); // the other, pending one
      // Another worker that just lost the store takes over nothing yet, however late.
      expect(await b.batches.claim(batch.id, "x", 5, T0 + 10_000, 1_000, false)).toEqual([]);
      expect((await b.batches.claim(batch.id, "x", 5, T0 + 10_000, 1_000, true)).map((item) => item.id).sort()).toEqual([mine!.id, again[0]!.id].sort());
    });

    test("claimHolders names the workers holding running items; releaseClaimsOf gives back exactly one worker's", async () => {
      const batch = await a.batches.create(newBatch(5));
      await a.batches.claim(batch.id, "gone", 2, T0, 60_000);
      await a.batches.claim(batch.id, "alive", 2, T0, 60_000);
      expect((await a.batches.claimHolders(batch.id)).sort()).toEqual(["alive", "gone"]);
      expect(await b.batches.releaseClaimsOf(batch.id, "gone")).toBe(2);
      expect(await a.batches.counts(batch.id)).toMatchObject({ pending: 3, running: 2 });
      expect(await a.batches.claimHolders(batch.id)).toEqual(["alive"]);
      // Given back: claimable at once, long before the lease would have run out.
      expect(await b.batches.claim(batch.id, "next", 5, T0 + 1, 60_000, false)).toHaveLength(3);
    });

    test("renewing keeps a lease alive; releasing makes the item pending again", async () => {
      const batch = await a.batches.create(newBatch(1));
      const [item] = await a.batches.claim(batch.id, "w", 1, T0, 1_000);
      await a.batches.renew("w", [item!.id], T0 + 5_000);
      expect(await b.batches.claim(batch.id, "x", 1, T0 + 2_000, 1_000)).toEqual([]);
      expect(await b.batches.activeRunning(batch.id, T0 + 2_000)).toBe(1);
      await a.batches.release(item!.id, "w");
      expect(await a.batches.counts(batch.id)).toMatchObject({ pending: 1, running: 0 });
    });

    test("transitions are conditional: of two racing moves exactly one wins; failItems ends the unfinished items", async () => {
      const batch = await a.batches.create(newBatch(3));
      await a.batches.claim(batch.id, "w", 1, T0, 60_000);
      const results = await Promise.all([
        a.batches.transition(batch.id, ["validating"], "in_progress", { inProgressAt: T0 }),
        b.batches.transition(batch.id, ["validating"], "in_progress", { inProgressAt: T0 }),
      ]);
      expect(results.filter(Boolean).length).toBe(1);
      const moved = await a.batches.transition(batch.id, ["in_progress"], "expired", { finalizedAt: T0 + 1, error: { message: "late" } }, { statuses: ["pending", "running"], error: { message: "expired" }, now: T0 + 1 });
      expect(moved).toBe(true);
      expect(await a.batches.counts(batch.id)).toEqual({ pending: 0, running: 0, completed: 0, failed: 3 });
      expect(await a.batches.get(batch.id)).toMatchObject({ status: "expired", inProgressAt: T0, finalizedAt: T0 + 1, error: { message: "late" } });
      // The worker that still runs the claimed item cannot overwrite its expiry.
      const [claimed] = (await a.batches.results(batch.id)).filter((item) => item.claimedBy === "w");
      expect(await a.batches.finish(claimed!.id, "w", { status: "completed", result: {} }, T0 + 2)).toBe(false);
    });

    test("list: newest first with an exclusive cursor; delete removes items; purge keeps the batch row", async () => {
      const ws = `ws-list-${Date.now()}`;
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await a.batches.create(newBatch(1, { workspaceId: ws, createdAt: 10 + i })));
      const page = await a.batches.list(ws, { limit: 2 });
      expect(page.map((batch) => batch.id)).toEqual([made[2]!.id, made[1]!.id]);
      const next = await a.batches.list(ws, { limit: 2, after: { createdAt: page[1]!.createdAt, id: page[1]!.id } });
      expect(next.map((batch) => batch.id)).toEqual([made[0]!.id]);
      await a.batches.transition(made[0]!.id, ["validating"], "cancelled", {});
      expect((await a.batches.dueForPurge(100, 10)).map((batch) => batch.id)).toContain(made[0]!.id);
      await a.batches.purge(made[0]!.id, 99);
      expect(await a.batches.results(made[0]!.id)).toEqual([]);
      expect((await a.batches.get(made[0]!.id))?.purgedAt).toBe(99);
      expect(await a.batches.delete(made[1]!.id)).toBe(true);
      expect(await a.batches.get(made[1]!.id)).toBeUndefined();
      expect(await a.batches.delete(made[1]!.id)).toBe(false);
    });
  });
}
