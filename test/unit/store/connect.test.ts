/** `openStore` / `parseDatabaseUrl`: URL forms, directory creation, persistence across restarts, errors. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore, parseDatabaseUrl } from "../../../core/store/connect.ts";
import { newKey } from "./store-suite.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-connect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("parseDatabaseUrl", () => {
  test("sqlite URL forms", () => {
    expect(parseDatabaseUrl("sqlite://:memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
    expect(parseDatabaseUrl("sqlite:///var/lib/gw/gateway.db")).toEqual({ kind: "sqlite", path: "/var/lib/gw/gateway.db" });
    expect(parseDatabaseUrl("sqlite://data/gateway.db")).toEqual({ kind: "sqlite", path: resolve("data/gateway.db") });
  });

  test("postgres URL forms pass through untouched", () => {
    for (const url of ["postgres://u:p@db:5432/gw", "postgresql://u@db/gw?sslmode=require"]) {
      expect(parseDatabaseUrl(url)).toEqual({ kind: "postgres", url });
    }
  });

  test("an unknown scheme names DATABASE_URL without echoing credentials", () => {
    let message = "";
    try {
      parseDatabaseUrl("mysql://root:hunter2@db/gw");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("DATABASE_URL");
    expect(message).toContain("mysql:");
    expect(message).not.toContain("hunter2");
    expect(() => parseDatabaseUrl("gateway.db")).toThrow(/DATABASE_URL/);
    expect(() => parseDatabaseUrl("sqlite://")).toThrow(/DATABASE_URL/);
  });
});

describe("openStore failures", () => {
  test("an unreachable Postgres rejects, naming DATABASE_URL but not the password", async () => {
    const failure = await openStore("postgres://gw:s3cret-pw@127.0.0.1:1/gw").then(
      () => new Error("opened"),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(/^DATABASE_URL: cannot open the postgres store/);
    expect(failure.message).not.toContain("s3cret-pw");
  });

  test("an unopenable SQLite path rejects, naming DATABASE_URL", async () => {
    // A directory where the database file should be.
    await expect(openStore(`sqlite://${dir}`)).rejects.toThrow(/^DATABASE_URL: cannot open the sqlite store/);
  });
});

describe("openStore on a SQLite file", () => {
  test("creates missing parent directories", async () => {
    const path = join(dir, "a", "b", "c", "gateway.db");
    const store = await openStore(`sqlite://${path}`);
    await store.close();
    expect(existsSync(path)).toBe(true);
  });

  test("resolves relative paths against the working directory", async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const store = await openStore("sqlite://rel/gateway.db");
      await store.close();
    } finally {
      process.chdir(cwd);
    }
    expect(existsSync(join(dir, "rel", "gateway.db"))).toBe(true);
  });

  test("data persists across a restart, and re-opening re-runs no migration", async () => {
    const url = `sqlite://${join(dir, "persist", "gateway.db")}`;
    const first = await openStore(url);
    const ws = await first.workspaces.ensureDefault();
    const key = await first.keys.create(newKey(ws.id, { limit: 5 }));
    await first.keys.addUsage([{ hash: key.hash, amount: 1.25 }]);
    await first.close();

    const second = await openStore(url);
    expect(await second.workspaces.ensureDefault()).toEqual(ws);
    expect(await second.keys.findByHash(key.hash)).toEqual({ ...key, usage: 1.25 });
    await second.close();
  });

  test("close is idempotent", async () => {
    const store = await openStore("sqlite://:memory:");
    await Promise.all([store.close(), store.close()]);
    await store.close();
  });

  test("several processes opening one fresh file at once all migrate and agree on the default workspace", async () => {
    const path = join(dir, "multi", "gateway.db");
    const child = join(import.meta.dir, "open-store-child.ts");
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, child, `sqlite://${path}`], { stdout: "pipe", stderr: "pipe" }),
    );
    const outputs = await Promise.all(
      procs.map(async (p) => {
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        return { out: out.trim(), err, code };
      }),
    );
    for (const o of outputs) expect(o).toMatchObject({ code: 0 });
    expect(new Set(outputs.map((o) => o.out)).size).toBe(1);
    const store = await openStore(`sqlite://${path}`);
    expect(await store.keys.count()).toBe(4);
    await store.close();
  });
});
