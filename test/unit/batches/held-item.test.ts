/**
 * core/batches/held-item.ts: a claimed item keeps its claim through a store outage. An ending the database could not
 * take is written by the same worker once it can be — without sending the request upstream again — and a run that met
 * the outage runs again once the store is back; only a stopping worker gives an item up.
 */
import { describe, expect, test } from "bun:test";
import { runHeldItem, type HeldItemContext } from "../../../core/batches/held-item.ts";
import { Catalog } from "../../../core/routing/catalog.ts";
import { storeUnavailable } from "../../../core/ops/unavailable.ts";
import type { BatchItemRecord, BatchRecord, ItemEnding } from "../../../core/store/types/batches.ts";
import { keyRecord } from "../auth/fakes.ts";
import { endpointOf, fakeAdapter, inferencePrincipal, modelConfig, providerConfig, testDeps } from "../pipeline/helpers.ts";

const model = modelConfig("acme/a", { prompt: 0.5, completion: 2 });
const batch = { id: "batch_1", workspaceId: "ws-1", keyHash: inferencePrincipal.keyHash, endpoint: "/chat/completions", model: null } as BatchRecord;
const item = { id: "item_1", batchId: "batch_1", idx: 0, customId: "c1", body: { model: "acme/a", messages: [{ role: "user", content: "hi" }] }, status: "running", attempts: 1 } as unknown as BatchItemRecord;

/**
 * A worker's context over a fake store: `finish` fails while `state.finishFailures` lasts; the first failure makes the
 * database "down" until `back()`; the key lookup fails with the 503 `state.keyFailures` times.
 */
function held() {
  const adapter = fakeAdapter();
  const catalog = new Catalog();
  catalog.add(endpointOf(model, providerConfig("p0", [model]), adapter));
  const state = { finishFailures: 0, keyFailures: 0, finishes: [] as ItemEnding[], releases: 0, up: true, recovered: false, troubles: 0 };
  let wake: (() => void) | undefined;
  const availability = {
    get up() {
      return state.up;
    },
    whenUp: (signal?: AbortSignal) =>
      state.up
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            wake = resolve;
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          }),
  };
  const batches = {
    async finish(_id: string, _worker: string, ending: ItemEnding) {
      if (state.finishFailures > 0) {
        state.finishFailures--;
        // Down until back(); after that, a failure is a flapping store that looks up (retried after a backoff).
        if (!state.recovered) state.up = false;
        throw storeUnavailable("database");
      }
      state.finishes.push(ending);
      return true;
    },
    async release() {
      state.releases++;
    },
  };
  const record = keyRecord(inferencePrincipal.keyHash);
  const deps = testDeps({
    catalog,
    store: { availability, batches, guardrails: { applying: async () => [] }, admissions: { admitted: async () => false }, workspaces: { get: async () => undefined, budgets: async () => [] }, byok: { all: async () => [] } } as never,
    keyCache: {
      get: async () => {
        if (state.keyFailures > 0) {
          state.keyFailures--;
          state.up = false;
          throw storeUnavailable("database");
        }
        return record;
      },
    } as never,
  });
  const ctx: HeldItemContext = { deps, discount: 0, workerId: "w", onStoreTrouble: () => void state.troubles++ };
  const back = () => {
    state.up = true;
    state.recovered = true;
    wake?.();
  };
  return { ctx, adapter, state, back, deps };
}

describe("runHeldItem", () => {
  test("an ending the database could not take is written by this worker once it is back, the request sent once", async () => {
    const { ctx, adapter, state, back } = held();
    state.finishFailures = 2;
    const done = runHeldItem(ctx, batch, item, new AbortController().signal);
    await Bun.sleep(30);
    expect(state.finishes).toHaveLength(0); // waiting for the store
    back();
    await done;
    expect(state.finishes.map((e) => e.status)).toEqual(["completed"]);
    expect(adapter.calls).toHaveLength(1); // never run twice
    expect(state.troubles).toBeGreaterThanOrEqual(1);
  });

  test("a run that met the outage (the key could not be looked up) runs again once the store is back, on the same claim", async () => {
    const { ctx, adapter, state, back } = held();
    state.keyFailures = 1;
    const done = runHeldItem(ctx, batch, item, new AbortController().signal);
    await Bun.sleep(30);
    expect(adapter.calls).toHaveLength(0);
    back();
    await done;
    expect(adapter.calls).toHaveLength(1);
    expect(state.finishes.map((e) => e.status)).toEqual(["completed"]);
    expect(state.releases).toBe(0);
  });

  test("a worker that stops while waiting to run gives the item back; while waiting to write, it logs the result as lost", async () => {
    const first = held();
    first.state.keyFailures = 1;
    const stop1 = new AbortController();
    const waitingToRun = runHeldItem(first.ctx, batch, item, stop1.signal);
    await Bun.sleep(20);
    stop1.abort();
    await waitingToRun;
    expect(first.state.releases).toBe(1);
    expect(first.state.finishes).toHaveLength(0);

    const second = held();
    second.state.finishFailures = 1_000;
    const stop2 = new AbortController();
    const waitingToWrite = runHeldItem(second.ctx, batch, item, stop2.signal);
    await Bun.sleep(20);
    stop2.abort();
    await waitingToWrite;
    expect(second.deps.logger.calls.some((c) => c.level === "error" && String(c.msg).startsWith("batch item result lost"))).toBe(true);
  });
});
