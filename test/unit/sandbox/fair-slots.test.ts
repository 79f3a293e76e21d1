import { expect, test } from "bun:test";
import { FairSlots, SandboxBusyError, type SlotLease } from "../../../core/sandbox/fair-slots.ts";

const LONG_WAIT = 60_000;

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await Bun.sleep(1);
  return done;
}

test("a workspace alone gets every shared slot at once; its next command waits (the spare is not for it)", async () => {
  const slots = new FairSlots(3, LONG_WAIT);
  const leases = await Promise.all([1, 2, 3].map(() => slots.acquire({ tenant: "a" })));
  expect(leases.map((l) => l.index).sort()).toEqual([0, 1, 2]);
  const fourth = slots.acquire({ tenant: "a" });
  expect(await settled(fourth)).toBe(false);
  leases[1]!.release();
  expect((await fourth).index).toBe(leases[1]!.index);
});

test("another workspace's first command runs at once on the spare while one workspace holds every shared slot", async () => {
  const slots = new FairSlots(2, LONG_WAIT);
  await slots.acquire({ tenant: "a" });
  await slots.acquire({ tenant: "a" });
  const queuedA = slots.acquire({ tenant: "a" });
  const b = slots.acquire({ tenant: "b" });
  expect(await settled(b)).toBe(true);
  expect((await b).index).toBe(2);
  expect(await settled(queuedA)).toBe(false);
  // The spare is for workspaces with nothing running: b's second command waits.
  expect(await settled(slots.acquire({ tenant: "b" }))).toBe(false);
});

test("a freed slot goes to the waiting workspace holding the fewest, whoever asked first; within one, in order", async () => {
  const slots = new FairSlots(2, LONG_WAIT);
  const a = [await slots.acquire({ tenant: "a" }), await slots.acquire({ tenant: "a" })];
  const order: string[] = [];
  const track = (name: string, p: Promise<SlotLease>) => p.then((lease) => (order.push(name), lease));
  const a3 = track("a3", slots.acquire({ tenant: "a" }));
  const b1 = track("b1", slots.acquire({ tenant: "b" })); // the spare
  const b2 = track("b2", slots.acquire({ tenant: "b" }));
  const c1 = track("c1", slots.acquire({ tenant: "c" }));
  await Bun.sleep(1);
  expect(order).toEqual(["b1"]);
  a[0]!.release(); // a holds 1, b 1, c 0: c
  await Bun.sleep(1);
  expect(order).toEqual(["b1", "c1"]);
  a[1]!.release(); // a 0, b 1, c 1: a
  await Bun.sleep(1);
  expect(order).toEqual(["b1", "c1", "a3"]);
  const c2 = track("c2", slots.acquire({ tenant: "c" }));
  (await b1).release(); // the spare, for a workspace holding nothing: b now holds nothing (c holds one)
  await Bun.sleep(1);
  expect(order).toEqual(["b1", "c1", "a3", "b2"]);
  (await a3).release(); // a shared slot: c and b hold one each, b was served last
  await Bun.sleep(1);
  expect(order).toEqual(["b1", "c1", "a3", "b2", "c2"]);
  for (const lease of [c1, b2, c2]) (await lease).release();
});

test("a command that waits past the cap is refused naming it, and leaves the queue", async () => {
  const slots = new FairSlots(1, 20);
  const held = await slots.acquire({ tenant: "a" });
  const waiting = slots.acquire({ tenant: "a" });
  await expect(waiting).rejects.toBeInstanceOf(SandboxBusyError);
  await expect(waiting).rejects.toThrow("waited 20 ms (sandbox.queue_timeout_ms) for a free slot");
  held.release();
  held.release(); // twice: one place given back
  const next = await slots.acquire({ tenant: "a" });
  expect(next.index).toBe(0);
  // The refused command did not take the place meanwhile: a fresh one waits behind `next` only.
  expect(await settled(slots.acquire({ tenant: "a" }))).toBe(false);
});

test("a waiter whose signal aborts leaves the queue with the signal's reason", async () => {
  const slots = new FairSlots(1, LONG_WAIT);
  const held = await slots.acquire({ tenant: "a" });
  const controller = new AbortController();
  const waiting = slots.acquire({ tenant: "a", signal: controller.signal });
  controller.abort(new Error("gone"));
  await expect(waiting).rejects.toThrow("gone");
  const after = slots.acquire({ tenant: "a" });
  held.release();
  expect((await after).index).toBe(0);
  await expect(slots.acquire({ tenant: "a", signal: AbortSignal.abort(new Error("already")) })).rejects.toThrow("already");
});

test("a preferred shared slot is taken when free, any free one otherwise", async () => {
  const slots = new FairSlots(3, LONG_WAIT);
  expect((await slots.acquire({ tenant: "a", preferred: 2 })).index).toBe(2);
  expect((await slots.acquire({ tenant: "a", preferred: 2 })).index).toBe(0);
  // Out of range (another uid's files, or the spare): ignored.
  expect((await slots.acquire({ tenant: "a", preferred: 9 })).index).toBe(1);
  expect(slots.capacity).toBe(4);
});

test("closing refuses every waiting command and any later one", async () => {
  const slots = new FairSlots(1, LONG_WAIT);
  await slots.acquire({ tenant: "a" });
  await slots.acquire({ tenant: "b" }); // the spare
  const waiting = ["a", "b", "c"].map((tenant) => slots.acquire({ tenant }).catch((error: Error) => error.message));
  slots.close();
  expect(await Promise.all(waiting)).toEqual(Array(3).fill("sandbox backend is closed"));
  await expect(slots.acquire({ tenant: "d" })).rejects.toThrow("sandbox backend is closed");
});
