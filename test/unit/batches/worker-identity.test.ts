/**
 * core/batches/worker-identity.ts and orphans.ts: a worker id names its process and place, so the claims of a
 * process of this place that is gone are given back at once; a live process, one elsewhere, or an id that says
 * nothing is never taken for gone (its claims wait for their lease).
 */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { reclaimOrphans } from "../../../core/batches/orphans.ts";
import { isGoneHere, workerIdOf } from "../../../core/batches/worker-identity.ts";
import { openStore } from "../../../core/store/connect.ts";
import { newBatch } from "./helpers.ts";

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("worker identity", () => {
  test("an id names this process; a dead PID of this place is gone, a live one, ours, or one elsewhere is not", async () => {
    const mine = workerIdOf("worker-abc");
    expect(mine).toStartWith(`worker-abc~${process.pid}@`);
    const place = mine.slice(mine.indexOf("@") + 1);
    const dead = await deadPid();
    expect(isGoneHere(`worker-x~${dead}@${place}`)).toBe(true);
    expect(isGoneHere(mine)).toBe(false);
    const sleeper = Bun.spawn(["sleep", "5"]);
    try {
      expect(isGoneHere(`worker-y~${sleeper.pid}@${place}`)).toBe(false);
    } finally {
      sleeper.kill();
    }
    expect(isGoneHere(`worker-z~${dead}@elsewhere/123`)).toBe(false);
    expect(isGoneHere("worker-0193abc")).toBe(false); // an id of an older version: judged by its lease only
  });
});

describe("reclaimOrphans", () => {
  test("gives back the running items of a gone local process at once, and nobody else's", async () => {
    const store = await openStore("sqlite://:memory:");
    try {
      const place = workerIdOf("w").split("@")[1];
      const gone = `worker-gone~${await deadPid()}@${place}`;
      const self = workerIdOf("worker-self");
      const elsewhere = `worker-far~1@elsewhere`;
      const batch = await store.batches.create(newBatch(6));
      await store.batches.transition(batch.id, ["validating"], "in_progress", { inProgressAt: 1 });
      const now = Date.now();
      for (const worker of [gone, self, elsewhere]) await store.batches.claim(batch.id, worker, 2, now, 60_000);
      expect(await reclaimOrphans({ store, logger: pino({ level: "silent" }) }, self)).toBe(2);
      expect((await store.batches.claimHolders(batch.id)).sort()).toEqual([elsewhere, self].sort());
      expect(await store.batches.counts(batch.id)).toMatchObject({ pending: 2, running: 4 });
    } finally {
      await store.close();
    }
  });
});
