/** core/routing/health.ts: the per-endpoint circuit breaker, shared by processes through one kv. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { EndpointHealth } from "../../../core/routing/health.ts";
import { manualClock, recordingLogger } from "../pipeline/helpers.ts";

const settings = { failureThreshold: 3, failureWindowMs: 10_000, cooldownMs: 5_000 };
const failure = (retryAfter?: number) => new GatewayError("provider_unavailable", "down", { retryable: true, ...(retryAfter === undefined ? {} : { retryAfter }) });
const settle = () => Bun.sleep(5);

function twoProcesses() {
  const clock = manualClock(1_000_000);
  const kv = createMemoryKv(clock);
  const a = new EndpointHealth(kv, clock, recordingLogger(), settings);
  const b = new EndpointHealth(kv, clock, recordingLogger(), settings);
  return { clock, kv, a, b };
}

describe("circuit breaker", () => {
  test("closed → open at the threshold → half-open after the cooldown → closed on success", async () => {
    const { clock, a } = twoProcesses();
    a.recordFailure("e", failure());
    a.recordFailure("e", failure());
    expect(a.stateOf("e")).toBe("closed");
    a.recordFailure("e", failure());
    expect(a.stateOf("e")).toBe("open");
    expect(a.cooldownUntil("e")).toBe(clock.now() + 5_000);
    clock.advance(5_000);
    expect(a.stateOf("e")).toBe("half-open");
    a.recordSuccess("e");
    expect(a.stateOf("e")).toBe("closed");
  });

  test("a failed half-open probe opens it again at once", () => {
    const { clock, a } = twoProcesses();
    for (let i = 0; i < 3; i++) a.recordFailure("e", failure());
    clock.advance(6_000);
    a.recordFailure("e", failure());
    expect(a.stateOf("e")).toBe("open");
  });

  test("failures older than the window do not add up", () => {
    const { clock, a } = twoProcesses();
    a.recordFailure("e", failure());
    a.recordFailure("e", failure());
    clock.advance(11_000);
    a.recordFailure("e", failure());
    expect(a.stateOf("e")).toBe("closed");
  });

  test("a Retry-After longer than the cooldown keeps the endpoint out for that long (capped at 5 minutes)", () => {
    const { clock, a } = twoProcesses();
    for (let i = 0; i < 3; i++) a.recordFailure("e", failure(60));
    expect(a.cooldownUntil("e")).toBe(clock.now() + 60_000);
    for (let i = 0; i < 3; i++) a.recordFailure("f", failure(3_600));
    expect(a.cooldownUntil("f")).toBe(clock.now() + 300_000);
  });

  test("shared: failures seen by two processes add up, and a trip reaches the other process at once", async () => {
    const { a, b } = twoProcesses();
    await a.start(["e"]);
    await b.start(["e"]);
    a.recordFailure("e", failure());
    await settle();
    b.recordFailure("e", failure());
    await settle();
    a.recordFailure("e", failure());
    await settle();
    expect(a.stateOf("e")).toBe("open");
    expect(b.stateOf("e")).toBe("open");
    b.recordSuccess("e");
    await settle();
    expect(a.stateOf("e")).toBe("closed");
  });

  test("a process started later loads the running cooldown from the kv", async () => {
    const { clock, kv, a } = twoProcesses();
    for (let i = 0; i < 3; i++) a.recordFailure("e", failure());
    await settle();
    const late = new EndpointHealth(kv, clock, recordingLogger(), settings);
    await late.start(["e", "other"]);
    expect(late.stateOf("e")).toBe("open");
    expect(late.stateOf("other")).toBe("closed");
  });

  test("half-open probes: one at a time; a kv failure lets the probe through", async () => {
    const { a } = twoProcesses();
    expect(await a.acquireProbe("e", 1_000)).toBe(true);
    expect(await a.acquireProbe("e", 1_000)).toBe(false);
    const broken = new EndpointHealth(
      { setIfAbsent: () => Promise.reject(new Error("down")), incrBy: () => Promise.reject(new Error("down")) } as never,
      manualClock(),
      recordingLogger(),
      settings,
    );
    expect(await broken.acquireProbe("e", 1_000)).toBe(true);
    broken.recordFailure("e", failure());
    await settle();
    expect(broken.stateOf("e")).toBe("closed");
  });
});
