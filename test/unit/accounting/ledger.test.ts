/** core/accounting/ledger.ts: batched, serialised writes off the hot path; nothing lost when the store fails. */
import { describe, expect, test } from "bun:test";
import { UsageLedger } from "../../../core/accounting/ledger.ts";
import type { Store } from "../../../core/store/types.ts";
import type { GenerationRecord } from "../../../core/store/types/generations.ts";
import { storeUnavailable } from "../../../core/ops/unavailable.ts";
import { recordingLogger } from "../pipeline/helpers.ts";

/**
 * A fake store with the contract of `generations.bill`: a record is stored once by id and its cost charged to its key
 * only when it is new. `gate` holds writes until released; `fail` makes the next writes reject before anything is
 * written, `failAfterCommit` makes them reject after the write took effect (a connection lost during COMMIT).
 */
function fakeStore() {
  const bills: GenerationRecord[][] = [];
  const stored = new Map<string, GenerationRecord>();
  const usage = new Map<string, number>();
  const state = { fail: 0, failAfterCommit: 0, error: new Error("database is locked") as unknown, gate: undefined as Promise<void> | undefined, entered: 0 };
  /** Resolves once a write has begun (the batch has been taken from the queue). */
  const writing = async () => {
    while (state.entered === 0) await Bun.sleep(0);
  };
  const store = {
    dialect: "sqlite",
    generations: {
      async bill(records: readonly GenerationRecord[]) {
        state.entered++;
        await state.gate;
        if (state.fail > 0) {
          state.fail--;
          throw state.error;
        }
        bills.push([...records]);
        for (const r of records) {
          if (stored.has(r.id)) continue;
          stored.set(r.id, r);
          if (r.cost > 0) usage.set(r.keyHash, (usage.get(r.keyHash) ?? 0) + r.cost);
        }
        if (state.failAfterCommit > 0) {
          state.failAfterCommit--;
          throw new Error("Connection terminated unexpectedly");
        }
      },
      get: async () => undefined,
    },
  } as unknown as Store;
  return { store, bills, stored, usage, state, writing };
}

let seq = 0;
function generation(keyHash: string, cost: number, id = `gen-${++seq}`): GenerationRecord {
  return {
    id,
    workspaceId: "ws",
    keyHash,
    format: "chat",
    model: "m",
    providerId: "p",
    upstreamModel: "m",
    streamed: false,
    status: 200,
    finishReason: "stop",
    errorType: null,
    inputTokens: 1,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 1,
    reasoningTokens: 0,
    cost,
    latencyMs: 1,
    firstTokenMs: null,
    createdAt: 0,
  };
}

describe("UsageLedger", () => {
  test("record() is synchronous and writes nothing; flush() writes one batch, charging each key its spending", async () => {
    const { store, bills, usage } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger());
    const a1 = generation("key-a", 0.5);
    const a2 = generation("key-a", 0.25);
    const b = generation("key-b", 0.125);
    const free = generation("key-c", 0);
    for (const g of [a1, a2, b, free]) ledger.record(g);
    expect(bills).toHaveLength(0);
    expect(ledger.pendingGeneration(a1.id)).toBe(a1);

    await ledger.flush();
    expect(bills).toEqual([[a1, a2, b, free]]);
    expect(Object.fromEntries(usage)).toEqual({ "key-a": 0.75, "key-b": 0.125 });
    expect(ledger.pendingGeneration(a1.id)).toBeUndefined();
  });

  test("a flush with nothing queued touches nothing", async () => {
    const { store, bills } = fakeStore();
    await new UsageLedger(store, recordingLogger()).flush();
    expect(bills).toEqual([]);
  });

  test("pendingUsage is exactly the spending not yet written, including records made during a flush", async () => {
    const { store, state, writing } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger());
    ledger.record(generation("key-a", 0.5));
    ledger.record(generation("key-a", 0.25));
    ledger.record(generation("key-b", 0));
    expect(ledger.pendingUsage("key-a")).toBe(0.75);
    expect(ledger.pendingUsage("key-b")).toBe(0);
    expect(ledger.pendingUsage("unknown")).toBe(0);

    let release!: () => void;
    state.gate = new Promise((r) => (release = r));
    const flushing = ledger.flush();
    await writing();
    ledger.record(generation("key-a", 0.125)); // arrives while the batch is being written
    expect(ledger.pendingUsage("key-a")).toBe(0.875); // still pending until the write succeeds
    release();
    await flushing;
    expect(ledger.pendingUsage("key-a")).toBe(0.125);
    await ledger.flush();
    expect(ledger.pendingUsage("key-a")).toBe(0);
  });

  test("decimal costs leave no floating-point residue once written", async () => {
    const { store } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger());
    for (const cost of [0.1, 0.2, 0.3, 0.0000007]) ledger.record(generation("key-a", cost));
    await ledger.flush();
    expect(ledger.pendingUsage("key-a")).toBe(0);
  });

  test("a failing store keeps every record (and its pending spend) for the next flush, in order", async () => {
    const { store, bills, usage, state } = fakeStore();
    const logger = recordingLogger();
    const ledger = new UsageLedger(store, logger);
    const first = generation("key-a", 0.5);
    ledger.record(first);
    state.fail = 1;
    await ledger.flush(); // must not reject: the request path never sees ledger failures
    expect(bills).toEqual([]);
    expect(ledger.pendingUsage("key-a")).toBe(0.5);
    expect(ledger.pendingGeneration(first.id)).toBe(first);
    expect(logger.calls.filter((c) => c.level === "error").map((c) => c.obj.records)).toEqual([1]);

    const second = generation("key-a", 0.25);
    ledger.record(second);
    await ledger.flush();
    expect(bills).toEqual([[first, second]]); // the failed batch first, in order
    expect(usage.get("key-a")).toBe(0.75);
    expect(ledger.pendingUsage("key-a")).toBe(0);
  });

  test("a write that took effect but reported failure (connection lost during COMMIT) is retried without charging twice", async () => {
    const { store, bills, usage, stored, state } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger());
    const g = generation("key-a", 0.5);
    ledger.record(g);
    state.failAfterCommit = 1;
    await ledger.flush();
    expect(ledger.pendingUsage("key-a")).toBe(0.5); // the ledger cannot know it was written: it keeps it
    await ledger.flush();
    expect(bills.map((batch) => batch.map((r) => r.id))).toEqual([[g.id], [g.id]]); // sent twice…
    expect(usage.get("key-a")).toBe(0.5); // …charged once, stored once
    expect([...stored.keys()]).toEqual([g.id]);
    expect(ledger.pendingUsage("key-a")).toBe(0);
  });

  test("an outage is logged once (a warning for an unreachable store) and its end once, however many flushes fail", async () => {
    const { store, usage, state } = fakeStore();
    const logger = recordingLogger();
    const ledger = new UsageLedger(store, logger);
    state.error = storeUnavailable("database", new Error("connect ECONNREFUSED 127.0.0.1:1"));
    state.fail = 5;
    for (let i = 0; i < 5; i++) {
      ledger.record(generation("key-a", 0.5));
      await ledger.flush();
    }
    expect(logger.calls.map((c) => c.level)).toEqual(["warn"]);
    expect(ledger.pendingUsage("key-a")).toBe(2.5); // credit windows still see what was served
    await ledger.flush();
    expect(usage.get("key-a")).toBe(2.5);
    expect(logger.calls.map((c) => [c.level, c.obj.records])).toEqual([
      ["warn", 1],
      ["info", 5],
    ]);
  });

  test("concurrent flushes are serialised: no record is written twice", async () => {
    const { store, bills, state, writing } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger());
    let release!: () => void;
    state.gate = new Promise((r) => (release = r));
    ledger.record(generation("k", 0.5, "g1"));
    const one = ledger.flush();
    await writing();
    ledger.record(generation("k", 0.5, "g2"));
    const two = ledger.flush();
    const three = ledger.flush();
    release();
    await Promise.all([one, two, three]);
    expect(bills.map((batch) => batch.map((r) => r.id))).toEqual([["g1"], ["g2"]]);
  });

  test("start() flushes on its interval; close() stops it and writes what is left", async () => {
    const { store, bills } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger(), 10);
    ledger.start();
    ledger.start(); // idempotent: one timer
    ledger.record(generation("k", 0.5, "tick"));
    const deadline = Date.now() + 1000;
    while (bills.length === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect(bills.map((b) => b.map((r) => r.id))).toEqual([["tick"]]);

    ledger.record(generation("k", 0.5, "at-close"));
    await ledger.close();
    expect(bills.map((b) => b.map((r) => r.id))).toEqual([["tick"], ["at-close"]]);
    ledger.record(generation("k", 0.5, "after-close"));
    await Bun.sleep(40);
    expect(bills).toHaveLength(2); // no timer any more
  });

  test("close() keeps retrying while the store is down, and writes once it is back within the window", async () => {
    const { store, usage, state } = fakeStore();
    const ledger = new UsageLedger(store, recordingLogger(), 10);
    ledger.record(generation("k", 0.5));
    state.fail = 4; // four failed tries, then the store takes it
    await ledger.close(2_000);
    expect(state.fail).toBe(0);
    expect(usage.get("k")).toBe(0.5);
  });

  test("close() gives up after its window and logs every unwritten record in full (the only copy left)", async () => {
    const { store, state } = fakeStore();
    const logger = recordingLogger();
    const ledger = new UsageLedger(store, logger, 10);
    const g = generation("k", 0.5);
    ledger.record(g);
    state.fail = 1_000;
    const started = Date.now();
    await ledger.close(100);
    expect(Date.now() - started).toBeLessThan(1_000);
    const last = logger.calls.at(-1)!;
    expect(last.level).toBe("error");
    expect(last.obj).toMatchObject({ records: 1, unwritten: [g] });
  });
});

describe("readConsistently: a stored read combined with pendingUsage never counts a batch twice or not at all", () => {
  /**
   * A store whose usage column is visible before the write's promise settles (as a committed transaction is seen by
   * other connections before its client gets the reply): the window in which stored + pending double-counts.
   */
  function committingStore() {
    const state = { stored: 0, release: undefined as (() => void) | undefined, reads: 0 };
    const store = {
      dialect: "sqlite",
      generations: {
        bill(records: readonly GenerationRecord[]) {
          for (const r of records) state.stored += r.cost;
          return new Promise<void>((resolve) => (state.release = resolve));
        },
        get: async () => undefined,
      },
    } as unknown as Store;
    const read = async () => {
      state.reads++;
      return state.stored;
    };
    return { store, state, read };
  }

  /** A ledger holding 1.5 for key "k" whose write has committed in the store but not yet returned. */
  async function midCommit() {
    const { store, state, read } = committingStore();
    const ledger = new UsageLedger(store, recordingLogger());
    ledger.record(generation("k", 1.5));
    const flushed = ledger.flush();
    while (!state.release) await Bun.sleep(0);
    const release: () => void = state.release;
    return { ledger, state: { release }, read, flushed };
  }

  test("a plain read during the commit window double-counts (the race this guards against)", async () => {
    const { ledger, state, read, flushed } = await midCommit();
    expect((await read()) + ledger.pendingUsage("k")).toBe(3); // stored and still pending
    state.release();
    await flushed;
  });

  test("a consistent read waits for the write in progress and sees it exactly once", async () => {
    const { ledger, state, read, flushed } = await midCommit();
    const reading = ledger.readConsistently(read).then((stored) => stored + ledger.pendingUsage("k"));
    await Bun.sleep(5);
    state.release();
    expect(await reading).toBe(1.5);
    await flushed;
  });

  test("a write that starts during the read makes it read again", async () => {
    const { store, state } = committingStore();
    const ledger = new UsageLedger(store, recordingLogger());
    ledger.record(generation("k", 2));
    let first = true;
    const total = await ledger.readConsistently(async () => {
      const value = state.stored;
      if (first) {
        first = false;
        // A flush begins while this read is in flight (its result predates the write).
        const flushed = ledger.flush();
        while (!state.release) await Bun.sleep(0);
        state.release();
        await flushed;
      }
      return value;
    });
    expect(state.stored).toBe(2);
    expect(total + ledger.pendingUsage("k")).toBe(2);
  });

  test("with no write around it reads once", async () => {
    const { store, state, read } = committingStore();
    const ledger = new UsageLedger(store, recordingLogger());
    expect(await ledger.readConsistently(read)).toBe(0);
    expect(state.reads).toBe(1);
  });
});
