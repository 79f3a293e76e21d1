/**
 * core/jobs/worker-pool.ts with small inline workers: answers come back; a job stuck in a synchronous loop is stopped
 * at its deadline by terminating its worker, which is replaced; a job swelling the process is stopped by the memory
 * bound; a cancelled job is stopped; a worker that cannot load fails its jobs with the pool's hint.
 */
import { afterEach, expect, test } from "bun:test";
import { JobPool, type JobPoolOptions } from "../../../core/jobs/worker-pool.ts";

type Payload = { action: "echo" | "retire" | "spin" | "swell"; text?: string };
type Answer = { echoed: string };

/** A worker answering `echo` (and `retire`, asking to be replaced), looping forever on `spin`, allocating without end on `swell`. */
const WORKER = `
self.onmessage = (event) => {
  const job = event.data;
  if (job.action === "spin") for (;;) {}
  if (job.action === "swell") { const kept = []; for (;;) kept.push(new Uint8Array(16 * 1024 * 1024).fill(1)); }
  self.postMessage({ type: "result", id: job.id, echoed: job.text, ...(job.action === "retire" ? { retire: true } : {}) });
};
self.postMessage({ type: "ready" });
`;
const url = URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }));

const pools: Array<JobPool<Payload, Answer>> = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function pool(options: Partial<JobPoolOptions> = {}): JobPool<Payload, Answer> {
  const made = new JobPool<Payload, Answer>({ label: "test", size: 1, memoryBudgetBytes: 4 * 1024 ** 3, spawn: () => new Worker(url), startHint: "build it", ...options });
  pools.push(made);
  return made;
}

test("an answer comes back as done; jobs beyond the pool's size wait their turn", async () => {
  const jobs = pool();
  const outcomes = await Promise.all(["a", "b", "c"].map((text) => jobs.run({ action: "echo", text }, { timeoutMs: 10_000 })));
  expect(outcomes).toEqual(["a", "b", "c"].map((text) => ({ type: "done", answer: { echoed: text } })));
  expect(jobs.workerCount).toBe(1);
});

test("a job stuck in a synchronous loop is stopped at its deadline, and the next job gets a fresh worker", async () => {
  const spawned: Worker[] = [];
  const jobs = pool({ spawn: () => (spawned.push(new Worker(url)), spawned.at(-1)!) });
  const spinning = jobs.run({ action: "spin" }, { timeoutMs: 200 });
  // Queued behind the spinning job: it runs once that worker is gone.
  const queued = jobs.run({ action: "echo", text: "after" }, { timeoutMs: 10_000 });
  expect(await spinning).toEqual({ type: "timeout", timeoutMs: 200 });
  expect(await queued).toEqual({ type: "done", answer: { echoed: "after" } });
  expect(spawned).toHaveLength(2);
});

test("a worker asking to retire after its answer is replaced; the answer comes back without the flag", async () => {
  const spawned: Worker[] = [];
  const jobs = pool({ spawn: () => (spawned.push(new Worker(url)), spawned.at(-1)!) });
  expect(await jobs.run({ action: "retire", text: "last" }, { timeoutMs: 10_000 })).toEqual({ type: "done", answer: { echoed: "last" } });
  expect(jobs.workerCount).toBe(0);
  expect(await jobs.run({ action: "echo", text: "next" }, { timeoutMs: 10_000 })).toEqual({ type: "done", answer: { echoed: "next" } });
  expect(spawned).toHaveLength(2);
});

test("a job growing the process past the memory budget is stopped", async () => {
  const jobs = pool({ memoryBudgetBytes: 64 * 1024 * 1024 });
  expect(await jobs.run({ action: "swell" }, { timeoutMs: 60_000 })).toEqual({ type: "memory", budgetBytes: 64 * 1024 * 1024 });
  expect(jobs.workerCount).toBe(0);
  expect(await jobs.run({ action: "echo", text: "still here" }, { timeoutMs: 10_000 })).toEqual({ type: "done", answer: { echoed: "still here" } });
});

test("a cancelled job rejects with the signal's reason and its worker is terminated", async () => {
  const jobs = pool();
  const controller = new AbortController();
  const running = jobs.run({ action: "spin" }, { timeoutMs: 60_000, signal: controller.signal });
  setTimeout(() => controller.abort(new Error("client gone")), 50);
  await expect(running).rejects.toThrow("client gone");
  expect(jobs.workerCount).toBe(0);
});

test("a worker that cannot load fails the job, and those queued, with the pool's hint", async () => {
  const jobs = pool({ spawn: () => new Worker("/nonexistent/worker.ts") });
  const outcomes = await Promise.allSettled(["x", "y"].map((text) => jobs.run({ action: "echo", text }, { timeoutMs: 10_000 })));
  for (const outcome of outcomes) {
    expect(outcome.status).toBe("rejected");
    expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/^Error: test worker failed to start \(build it\)/);
  }
});

test("closing ends a running job as closed and refuses new ones", async () => {
  const jobs = pool();
  const running = jobs.run({ action: "spin" }, { timeoutMs: 60_000 });
  await Bun.sleep(50);
  jobs.close();
  expect(await running).toEqual({ type: "closed" });
  await expect(jobs.run({ action: "echo", text: "x" }, { timeoutMs: 1_000 })).rejects.toThrow("test pool is closed");
});
