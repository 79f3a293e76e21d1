/** core/auth/key-cache.ts: TTL caching of key records, and invalidation here and in other processes. */
import { afterEach, describe, expect, test } from "bun:test";
import { KeyCache } from "../../../core/auth/key-cache.ts";
import { createMemoryKv, type MemoryKv } from "../../../core/kv/memory.ts";
import { manualClock } from "../pipeline/helpers.ts";
import { fakeKeyRepo, keyRecord } from "./fakes.ts";

const kvs: MemoryKv[] = [];
function sharedKv(): MemoryKv {
  const kv = createMemoryKv();
  kvs.push(kv);
  return kv;
}
afterEach(async () => {
  for (const kv of kvs.splice(0)) await kv.close();
});

/** Lets queued pub/sub deliveries run. */
const deliveries = () => Bun.sleep(0);

describe("KeyCache", () => {
  test("serves a key from memory for the TTL, then reads it again", async () => {
    const clock = manualClock(0);
    const repo = fakeKeyRepo([keyRecord("h1", { name: "v1" })]);
    const cache = new KeyCache(repo, sharedKv(), clock.now, 1000);
    expect((await cache.get("h1"))?.name).toBe("v1");
    repo.rows.set("h1", keyRecord("h1", { name: "v2" }));
    clock.advance(999);
    expect((await cache.get("h1"))?.name).toBe("v1");
    expect(repo.lookups).toEqual(["h1"]);
    clock.advance(1);
    expect((await cache.get("h1"))?.name).toBe("v2");
    expect(repo.lookups).toEqual(["h1", "h1"]);
  });

  test("unknown keys are not cached, and a key that disappeared is dropped", async () => {
    const clock = manualClock(0);
    const repo = fakeKeyRepo();
    const cache = new KeyCache(repo, sharedKv(), clock.now, 1000);
    expect(await cache.get("nope")).toBeUndefined();
    repo.rows.set("nope", keyRecord("nope"));
    expect((await cache.get("nope"))?.hash).toBe("nope"); // created since: found at once
    repo.rows.delete("nope");
    clock.advance(1000);
    expect(await cache.get("nope")).toBeUndefined();
    expect(repo.lookups).toHaveLength(3);
  });

  test("invalidate() drops the key here at once", async () => {
    const repo = fakeKeyRepo([keyRecord("h1")]);
    const cache = new KeyCache(repo, sharedKv(), manualClock(0).now, 60_000);
    await cache.start();
    await cache.get("h1");
    repo.rows.set("h1", keyRecord("h1", { disabled: true }));
    await cache.invalidate("h1");
    expect((await cache.get("h1"))?.disabled).toBe(true);
  });

  test("an invalidation published by another process drops the key in this one", async () => {
    const kv = sharedKv(); // stands in for Redis, shared by both processes
    const clock = manualClock(0);
    const repo = fakeKeyRepo([keyRecord("h1"), keyRecord("h2")]);
    const here = new KeyCache(repo, kv, clock.now, 60_000);
    const elsewhere = new KeyCache(repo, kv, clock.now, 60_000);
    await here.start();
    await elsewhere.start();
    await here.get("h1");
    await here.get("h2");

    repo.rows.set("h1", keyRecord("h1", { disabled: true }));
    await elsewhere.invalidate("h1");
    await deliveries();
    expect((await here.get("h1"))?.disabled).toBe(true);
    expect(repo.lookups.filter((h) => h === "h2")).toHaveLength(1);
    await here.get("h2"); // other keys stay cached
    expect(repo.lookups.filter((h) => h === "h2")).toHaveLength(1);
  });

  test("without start() a process does not hear other processes' invalidations", async () => {
    const kv = sharedKv();
    const repo = fakeKeyRepo([keyRecord("h1")]);
    const deaf = new KeyCache(repo, kv, manualClock(0).now, 60_000);
    const other = new KeyCache(repo, kv, manualClock(0).now, 60_000);
    await deaf.get("h1");
    repo.rows.set("h1", keyRecord("h1", { disabled: true }));
    await other.invalidate("h1");
    await deliveries();
    expect((await deaf.get("h1"))?.disabled).toBe(false);
  });

  test("a read that raced an invalidation does not cache the stale record", async () => {
    const repo = fakeKeyRepo([keyRecord("h1")]);
    const cache = new KeyCache(repo, sharedKv(), manualClock(0).now, 60_000);
    await cache.start();
    let release!: () => void;
    repo.hold = new Promise((r) => (release = r));
    const racing = cache.get("h1"); // reads the row (still enabled) and waits
    await Bun.sleep(0);
    repo.rows.set("h1", keyRecord("h1", { disabled: true })); // PATCH /keys/h1 disabled
    await cache.invalidate("h1");
    release();
    repo.hold = undefined;
    expect((await racing)?.disabled).toBe(false); // the request already in flight may see the old row
    expect((await cache.get("h1"))?.disabled).toBe(true); // but nothing after it
  });
});
