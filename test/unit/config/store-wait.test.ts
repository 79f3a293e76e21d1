/**
 * Configuration of store outages (README "Operations: store outages"): `STORE_WAIT_SECONDS` bounds how long start-up
 * waits for an unreachable store, and the batch lease is short enough that a gone process's claims are taken over
 * within 15 s (hardening issue, item 2).
 */
import { describe, expect, test } from "bun:test";
import { buildConfig, ConfigError, DEFAULT_BATCHES } from "../../../core/config/load.ts";

const build = (env: Record<string, string | undefined>) => buildConfig({}, env, process.cwd());

describe("STORE_WAIT_SECONDS", () => {
  test("defaults to a few minutes; a number of seconds (0 included) is taken as given", () => {
    expect(build({}).storeWaitMs).toBe(180_000);
    expect(build({ STORE_WAIT_SECONDS: "" }).storeWaitMs).toBe(180_000);
    expect(build({ STORE_WAIT_SECONDS: "30" }).storeWaitMs).toBe(30_000);
    expect(build({ STORE_WAIT_SECONDS: "0.5" }).storeWaitMs).toBe(500);
    expect(build({ STORE_WAIT_SECONDS: "0" }).storeWaitMs).toBe(0);
  });

  test("anything else stops start-up naming the variable", () => {
    for (const raw of ["abc", "-1", "1e3", "5s"]) {
      expect(() => build({ STORE_WAIT_SECONDS: raw })).toThrow(new ConfigError(`STORE_WAIT_SECONDS: not a number of seconds: ${raw}`));
    }
  });
});

describe("batch lease default", () => {
  test("a gone process's claims run out and are claimed again within 15 s", () => {
    expect(DEFAULT_BATCHES.leaseMs + DEFAULT_BATCHES.pollIntervalMs).toBeLessThanOrEqual(15_000);
  });
});
