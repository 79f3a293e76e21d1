import { expect, test } from "bun:test";
import { Semaphore } from "../../../core/sandbox/semaphore.ts";

test("at most `size` holders; the next waits, in order, and a released place goes to it", async () => {
  const semaphore = new Semaphore(1);
  const order: string[] = [];
  const releaseFirst = await semaphore.acquire();
  const second = semaphore.acquire().then((release) => (order.push("second"), release));
  const third = semaphore.acquire().then((release) => (order.push("third"), release));
  await Bun.sleep(5);
  expect(order).toEqual([]);
  releaseFirst();
  releaseFirst(); // twice: still one place given back
  (await second)();
  (await third)();
  expect(order).toEqual(["second", "third"]);
});

test("a waiter whose signal aborts leaves the queue", async () => {
  const semaphore = new Semaphore(1);
  const release = await semaphore.acquire();
  const controller = new AbortController();
  const waiting = semaphore.acquire(controller.signal);
  controller.abort(new Error("gone"));
  await expect(waiting).rejects.toThrow("gone");
  release();
  const next = await Promise.race([semaphore.acquire(), Bun.sleep(50).then(() => undefined)]);
  expect(next).toBeFunction();
});
