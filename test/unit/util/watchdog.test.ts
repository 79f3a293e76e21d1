/** core/util/watchdog.ts: timeouts on one shared ticker. */
import { describe, expect, test } from "bun:test";
import { watch, watchedCount } from "../../../core/util/watchdog.ts";

describe("watchdog", () => {
  test("the watchdog fires once after the timeout, not while paused, and never after cancel", async () => {
    let fired = 0;
    const handle = watch(30, () => fired++);
    handle.pause();
    await Bun.sleep(60);
    expect(fired).toBe(0);
    handle.touch();
    await Bun.sleep(80);
    expect(fired).toBe(1);
    const other = watch(20, () => fired++);
    other.cancel();
    await Bun.sleep(50);
    expect(fired).toBe(1);
    expect(watchedCount()).toBe(0);
  });
});
