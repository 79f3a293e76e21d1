/**
 * core/ops/readiness.ts and `GET /health/ready`: each configured store is asked once with a short time-out; a store
 * that fails or hangs makes the answer a 503 naming it, within the time-out; Redis is checked only when configured.
 */
import { describe, expect, test } from "bun:test";
import { readinessResponse } from "../../../core/api/health.ts";
import type { Kv } from "../../../core/kv/kv.ts";
import { checkReadiness } from "../../../core/ops/readiness.ts";
import { storeUnavailable } from "../../../core/ops/unavailable.ts";
import type { Store } from "../../../core/store/types.ts";
import { startTestGateway } from "../../support/gateway.ts";

const storeThat = (ping: () => Promise<void>) => ({ ping }) as unknown as Store;
const kvThat = (get: () => Promise<string | null>) => ({ get }) as unknown as Kv;
const ok = storeThat(async () => undefined);
const okKv = kvThat(async () => null);
const never = () => new Promise<never>(() => undefined);

describe("checkReadiness", () => {
  test("every configured store answers: ready, with each check", async () => {
    const readiness = await checkReadiness({ store: ok, kv: okKv, redis: true });
    expect(readiness).toMatchObject({ ready: true, failing: undefined, checks: { database: { status: "ok" }, redis: { status: "ok" } } });
  });

  test("without REDIS_URL only the database is checked (the in-process kv cannot fail)", async () => {
    const readiness = await checkReadiness({ store: ok, kv: kvThat(() => Promise.reject(new Error("unused"))), redis: false });
    expect(Object.keys(readiness.checks)).toEqual(["database"]);
    expect(readiness.ready).toBe(true);
  });

  test("a database that fails names the database", async () => {
    const readiness = await checkReadiness({ store: storeThat(() => Promise.reject(storeUnavailable("database"))), kv: okKv, redis: true });
    expect(readiness).toMatchObject({ ready: false, failing: "database", checks: { database: { status: "unavailable" }, redis: { status: "ok" } } });
  });

  test("a Redis that hangs is answered as unavailable within the time-out", async () => {
    const started = performance.now();
    const readiness = await checkReadiness({ store: ok, kv: kvThat(never), redis: true }, 50);
    expect(performance.now() - started).toBeLessThan(500);
    expect(readiness).toMatchObject({ ready: false, failing: "redis", checks: { redis: { status: "unavailable" } } });
  });
});

describe("readinessResponse", () => {
  test("ready: 200 with the checks", async () => {
    const response = readinessResponse({ failing: undefined, checks: { database: { status: "ok", ms: 1 } } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", checks: { database: { status: "ok", ms: 1 } } });
  });

  test("not ready: the 503 envelope naming the store, Retry-After, every check in its metadata", async () => {
    const checks = { database: { status: "ok" as const, ms: 1 }, redis: { status: "unavailable" as const, ms: 1000 } };
    const response = readinessResponse({ failing: "redis", checks });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = (await response.json()) as { error: { code: number; message: string; metadata: Record<string, unknown> } };
    expect(body.error.code).toBe(503);
    expect(body.error.message).toBe("Not ready: Redis cannot be reached");
    expect(body.error.metadata).toMatchObject({ availability: { store: "redis" }, checks });
  });
});

describe("GET /health/ready", () => {
  test("answers 200 on a gateway whose store answers, and needs no key", async () => {
    const gw = await startTestGateway();
    try {
      const response = await gw.request("/health/ready", { key: null });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "ready", checks: { database: { status: "ok" } } });
    } finally {
      await gw.close();
    }
  });
});
