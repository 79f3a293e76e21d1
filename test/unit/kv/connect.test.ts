/** `openKv`: memory without a URL, Redis with one, a clear error for anything else. */
import { describe, expect, test } from "bun:test";
import { openKv } from "../../../core/kv/connect.ts";
import { runPrefix } from "./kv-suite.ts";

const REDIS_URL = process.env.REDIS_URL;

describe("openKv", () => {
  test("without a URL (or with an empty one) returns a working memory kv", async () => {
    for (const url of [undefined, "", "  "]) {
      const kv = await openKv(url);
      expect("sweep" in kv).toBe(true);
      await kv.set("k", "v");
      expect(await kv.get("k")).toBe("v");
      await kv.close();
    }
  });

  test("a URL of another scheme names REDIS_URL", async () => {
    await expect(openKv("http://127.0.0.1:6379")).rejects.toThrow(/REDIS_URL/);
  });

  test("an unreachable Redis rejects quickly, naming REDIS_URL", async () => {
    const started = Date.now();
    await expect(openKv("redis://127.0.0.1:1")).rejects.toThrow(/REDIS_URL/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test.skipIf(!REDIS_URL)("with REDIS_URL returns a Redis kv", async () => {
    const kv = await openKv(REDIS_URL);
    expect("sweep" in kv).toBe(false);
    const k = `${runPrefix()}connect`;
    await kv.set(k, "v", 10_000);
    expect(await kv.get(k)).toBe("v");
    await kv.del(k);
    await kv.close();
  });
});
