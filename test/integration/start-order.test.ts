/**
 * Start in any order (README "Operations: store outages"): `bun server.ts` started while its own Postgres (initdb in
 * a temporary folder, its own port) is down waits — liveness 200, readiness 503 naming the database, one log line per
 * attempt — and serves once Postgres is up; started against a Redis (or a Postgres) that never comes, it exits after
 * `STORE_WAIT_SECONDS` with one line naming the variable and no stack trace. The machine's shared services are never
 * touched; the test skips, saying why, without the server binaries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";
import { spawnGatewayChild, type GatewayChild } from "../support/gateway-process.ts";
import { findPostgres, startOwnPostgres, type OwnPostgres } from "../support/own-postgres.ts";

const bins = findPostgres();
if ("skip" in bins) console.log(`start order: Postgres cases skipped (${bins.skip})`);

const ADMIN = "start-order-admin-key-0123456789";
const children: GatewayChild[] = [];
let postgres: OwnPostgres | undefined;
let config: string;

beforeAll(() => {
  config = join(mkdtempSync(join(tmpdir(), "gw-start-order-")), "gateway.json");
  writeFileSync(config, JSON.stringify({ simulator: true }));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await postgres?.destroy();
});

function start(env: Record<string, string>): GatewayChild {
  const child = spawnGatewayChild({ GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: config, ...env });
  children.push(child);
  return child;
}

/** The one stderr line of a gateway that gave up, once it exited. */
async function exitLine(child: GatewayChild): Promise<{ code: number; stderr: string }> {
  const code = await Promise.race([child.child.exited, Bun.sleep(15_000).then(() => -1)]);
  return { code, stderr: child.stderr() };
}

describe.skipIf("skip" in bins)("started while its Postgres is down", () => {
  test("waits (liveness 200, readiness and requests 503 naming the database, a line per attempt), then serves", async () => {
    postgres = await startOwnPostgres(bins as Exclude<typeof bins, { skip: string }>);
    await postgres.stop();
    const gw = start({ DATABASE_URL: postgres.url });
    const base = await gw.base();
    await gw.waitForLine(/start-up: waiting for the database/);

    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("1");
    expect(((await ready.json()) as { error: { message: string } }).error.message).toContain("waiting for the database");
    const chat = await fetch(`${base}/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: "{}" });
    expect(chat.status).toBe(503);
    expect(chat.headers.get("retry-after")).toBe("1");

    // More attempts come, each its own line, spaced by a growing delay.
    await gw.waitForLine(/"attempt":3[,}].*waiting for the database/);
    await postgres.start();
    await gw.waitForLine(/gateway listening/, 15_000);
    expect(gw.lines.filter((l) => l.includes("start-up: waiting for the database")).every((l) => /"retry_in_ms":\d+/.test(l))).toBe(true);
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    const key = (await (await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "after wait" }) })).json()) as { key: string };
    const served = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(served.status).toBe(200);
  }, 40_000);

  test("a Postgres that never comes: exits after STORE_WAIT_SECONDS with one line naming DATABASE_URL, no stack", async () => {
    const port = await freePort();
    const gw = start({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, STORE_WAIT_SECONDS: "1" });
    const { code, stderr } = await exitLine(gw);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toStartWith("gateway: DATABASE_URL: cannot open the postgres store (");
    expect(stderr).toContain("giving up (STORE_WAIT_SECONDS=1)");
    expect(gw.lines.filter((l) => l.includes("start-up: waiting for the database")).length).toBeGreaterThanOrEqual(1);
  }, 20_000);
});

describe("started against a Redis that never comes", () => {
  test("exits after STORE_WAIT_SECONDS with one line naming REDIS_URL, no stack trace", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "gw-start-order-db-"));
    const gw = start({ DATABASE_URL: `sqlite://${join(dir, "gateway.db")}`, REDIS_URL: `redis://127.0.0.1:${port}`, STORE_WAIT_SECONDS: "1" });
    const { code, stderr } = await exitLine(gw);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toStartWith("gateway: REDIS_URL: cannot connect to Redis (");
    expect(stderr).toContain("giving up (STORE_WAIT_SECONDS=1)");
    expect(stderr).not.toContain("    at ");
    expect(gw.lines.filter((l) => l.includes("start-up: waiting for Redis")).length).toBeGreaterThanOrEqual(1);
  }, 20_000);
});
