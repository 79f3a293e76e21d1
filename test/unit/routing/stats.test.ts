/** core/routing/stats.ts, sticky.ts: rolling statistics and sticky sessions. */
import { describe, expect, test } from "bun:test";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { EndpointStats } from "../../../core/routing/stats.ts";
import { pinnedProvider, pinProvider, stickyKey } from "../../../core/routing/sticky.ts";
import { recordingLogger } from "../pipeline/helpers.ts";

describe("endpoint statistics", () => {
  test("percentiles over the last N samples", () => {
    const stats = new EndpointStats(createMemoryKv(), recordingLogger(), 10);
    expect(stats.latency("e")).toBeUndefined();
    for (let i = 1; i <= 20; i++) stats.recordLatency("e", i);
    expect(stats.latency("e")).toEqual({ p50: 16, p75: 18, p90: 20, p99: 20 });
    stats.recordThroughput("e", 0);
    stats.recordThroughput("e", Number.NaN);
    expect(stats.throughput("e")).toBeUndefined();
  });

  test("a process with too few samples uses what another process published through the kv", async () => {
    const kv = createMemoryKv();
    const busy = new EndpointStats(kv, recordingLogger(), 50);
    const fresh = new EndpointStats(kv, recordingLogger(), 50);
    for (let i = 0; i < 10; i++) busy.recordThroughput("e", 100);
    await busy.sync(["e"]);
    await fresh.sync(["e"]);
    expect(fresh.throughput("e")?.p50).toBe(100);
    fresh.recordThroughput("e", 5);
    expect(fresh.throughput("e")?.p50).toBe(100);
  });
});

describe("sticky sessions", () => {
  test("the first provider to serve a session is pinned; the pin is refreshed or moved later", async () => {
    const kv = createMemoryKv();
    const key = stickyKey("hash", "m/a", "sess");
    expect(await pinnedProvider(kv, key)).toBeUndefined();
    await pinProvider(kv, key, "p1", undefined, 1_000);
    await pinProvider(kv, key, "p2", undefined, 1_000);
    expect(await pinnedProvider(kv, key)).toBe("p1");
    await pinProvider(kv, key, "p2", "p1", 1_000);
    expect(await pinnedProvider(kv, key)).toBe("p2");
    expect(await pinnedProvider({ get: () => Promise.reject(new Error("down")) } as never, key)).toBeUndefined();
  });
});
