/**
 * core/store/availability.ts: the first unreachable error marks the database down; while down every operation is
 * refused at once with the 503, a probe runs until one succeeds, waiters resume at once, and the outage is logged
 * once (and its end once), however many operations failed.
 */
import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../core/errors.ts";
import { StoreAvailability } from "../../../core/store/availability.ts";
import { recordingLogger } from "../pipeline/helpers.ts";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });

/** An availability whose probe fails while `state.down`. */
function tracked() {
  const state = { down: true, probes: 0 };
  const logger = recordingLogger();
  const availability = new StoreAvailability({
    probe: async () => {
      state.probes++;
      if (state.down) throw refused();
    },
    logger,
    probeEveryMs: 5,
  });
  return { availability, state, logger };
}

describe("StoreAvailability", () => {
  test("a query fault passes through unchanged and marks nothing", () => {
    const { availability, logger } = tracked();
    const fault = Object.assign(new Error("duplicate key"), { code: "23505" });
    expect(availability.failed(fault)).toBe(fault);
    expect(availability.up).toBe(true);
    expect(() => availability.check()).not.toThrow();
    expect(logger.calls).toEqual([]);
  });

  test("an unreachable error becomes the 503 and marks the store down; while down, check() refuses at once", () => {
    const { availability } = tracked();
    const answered = availability.failed(refused());
    expect(isGatewayError(answered) && answered.status).toBe(503);
    expect(isGatewayError(answered) && answered.retryAfter).toBe(1);
    expect(availability.up).toBe(false);
    let thrown: unknown;
    try {
      availability.check();
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown) && thrown.metadata?.availability).toMatchObject({ code: "temporarily_unavailable", store: "database" });
    availability.close();
  });

  test("probes until the database answers, then is up and wakes every waiter; one log line each way", async () => {
    const { availability, state, logger } = tracked();
    for (let i = 0; i < 5; i++) availability.failed(refused());
    const waiters = [availability.whenUp(), availability.whenUp()];
    await Bun.sleep(30);
    expect(state.probes).toBeGreaterThan(1);
    expect(availability.up).toBe(false);
    state.down = false;
    await Promise.all(waiters);
    expect(availability.up).toBe(true);
    expect(logger.calls.map((c) => c.level)).toEqual(["warn", "info"]);
    const probes = state.probes;
    await Bun.sleep(20);
    expect(state.probes).toBe(probes); // no probing while up
    availability.close();
  });

  test("whenUp resolves at once while up, and rejects when its signal aborts first", async () => {
    const { availability } = tracked();
    await availability.whenUp();
    availability.failed(refused());
    const controller = new AbortController();
    const waiting = availability.whenUp(controller.signal);
    controller.abort(new Error("stopping"));
    await expect(waiting).rejects.toThrow("stopping");
    availability.close();
  });

  test("close() stops probing and lets waiters go", async () => {
    const { availability, state } = tracked();
    availability.failed(refused());
    const waiting = availability.whenUp();
    await Bun.sleep(10);
    availability.close();
    await waiting;
    const probes = state.probes;
    await Bun.sleep(20);
    expect(state.probes).toBe(probes);
  });
});
