/** core/ops/idle-trim.ts: one trim per quiet period, none while requests or streams keep the gateway busy. */
import { afterEach, describe, expect, test } from "bun:test";
import { IdleTrimmer, releaseMemory } from "../../../core/ops/idle-trim.ts";

const IDLE_MS = 100;
/** Positive expectations wait with a deadline (a loaded machine delays timers); negative ones need no margin. */
async function within(ms: number, done: () => boolean): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done() && performance.now() < deadline) await Bun.sleep(5);
}
let trimmer: IdleTrimmer | undefined;

afterEach(() => {
  trimmer?.stop();
  trimmer = undefined;
});

function started(options: { idleMs?: number; busy?: () => boolean } = {}) {
  const seen = { trims: 0, reports: 0 };
  trimmer = new IdleTrimmer({
    idleMs: options.idleMs ?? IDLE_MS,
    busy: options.busy ?? (() => false),
    trim: () => void seen.trims++,
    onTrim: (report) => {
      expect(report.ms).toBeGreaterThanOrEqual(0);
      expect(report.rssBeforeBytes).toBeGreaterThan(0);
      seen.reports++;
    },
  });
  trimmer.start();
  return { trimmer, seen };
}

describe("IdleTrimmer", () => {
  test("a quiet process is trimmed once, not again until traffic comes back", async () => {
    const { trimmer, seen } = started();
    await Bun.sleep(IDLE_MS / 2);
    expect(seen.trims).toBe(0); // not before idleMs
    await within(2000, () => seen.trims > 0);
    expect(seen.trims).toBe(1);
    await Bun.sleep(IDLE_MS * 3);
    expect(seen.trims).toBe(1);
    expect(seen.reports).toBe(1);
    expect(trimmer.trims).toBe(1);
    trimmer.touch();
    await within(2000, () => seen.trims > 1);
    expect(seen.trims).toBe(2);
  });

  test("steady requests keep it from trimming; it trims once they stop", async () => {
    const { trimmer, seen } = started();
    const until = performance.now() + IDLE_MS * 4;
    while (performance.now() < until) {
      trimmer.touch();
      await Bun.sleep(IDLE_MS / 10);
    }
    expect(seen.trims).toBe(0);
    await within(2000, () => seen.trims > 0);
    expect(seen.trims).toBe(1);
  });

  test("an open stream (busy) keeps it from trimming however long it lasts", async () => {
    let busy = true;
    const { seen } = started({ busy: () => busy });
    await Bun.sleep(IDLE_MS * 4);
    expect(seen.trims).toBe(0);
    busy = false;
    await within(2000, () => seen.trims > 0);
    expect(seen.trims).toBe(1);
  });

  test("idleMs 0 turns it off", async () => {
    const { seen } = started({ idleMs: 0 });
    await Bun.sleep(IDLE_MS * 3);
    expect(seen.trims).toBe(0);
  });

  test("the real trim runs in this runtime (full GC and Bun.shrink)", () => {
    expect(typeof Bun.shrink).toBe("function");
    expect(() => releaseMemory()).not.toThrow();
  });
});
