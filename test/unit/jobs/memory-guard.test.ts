import { expect, test } from "bun:test";
import { MemoryGuard } from "../../../core/jobs/memory-guard.ts";

test("calls for a stop when resident memory grows past the budget while commands run, and only then", async () => {
  let rss = 1000;
  let stops = 0;
  const guard = new MemoryGuard(500, () => stops++, () => rss);
  guard.setBusy(1);
  rss = 1400;
  await Bun.sleep(150);
  expect(stops).toBe(0);
  rss = 1600;
  await Bun.sleep(150);
  expect(stops).toBe(1);
  guard.setBusy(0);
  rss = 5000;
  await Bun.sleep(150);
  expect(stops).toBe(1); // not sampling while idle
  guard.stop();
});
