/**
 * Two real gateway processes (`bun server.ts`) on one Postgres and one Redis: a credit limit and a rate limit hold
 * across them, and a key revoked through one is refused by the other. Runs when DATABASE_URL (postgres) and
 * REDIS_URL are set, as in CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../support/pg-schema.ts";

type Json = Record<string, any>;

const REDIS_URL = process.env.REDIS_URL;
const enabled = POSTGRES_URL !== undefined && REDIS_URL !== undefined;
if (!enabled) console.log("multi-node processes: skipped (set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run)");

const root = resolve(import.meta.dir, "../..");
const ADMIN = "multi-process-admin-key-0123456789";
const children: Subprocess[] = [];
let schema: TempSchema;
let bases: string[] = [];

/** Starts `bun server.ts` on a free port and resolves its API base URL once it listens. */
async function startProcess(env: Record<string, string>): Promise<string> {
  const child = Bun.spawn(["bun", "server.ts"], { cwd: root, env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...env }, stdout: "pipe", stderr: "pipe" });
  children.push(child);
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timeout = Bun.sleep(15_000).then(() => undefined);
  for (;;) {
    const match = /"url":"(http:\/\/127\.0\.0\.1:\d+\/api\/v1)"/.exec(text);
    if (match) {
      // Keep draining stdout so a chatty child never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => undefined);
      return match[1]!;
    }
    const chunk = await Promise.race([reader.read(), timeout]);
    if (!chunk || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  child.kill("SIGKILL");
  throw new Error(`gateway process did not start:\n${text}`);
}

describe.skipIf(!enabled)("two gateway processes on one Postgres and one Redis", () => {
  beforeAll(async () => {
    schema = await createTempSchema(POSTGRES_URL!);
    const dir = mkdtempSync(join(tmpdir(), "gw-multi-"));
    const config = join(dir, "gateway.json");
    writeFileSync(config, JSON.stringify({ simulator: true, routing: { max_retries: 0 } }));
    const env = { DATABASE_URL: schema.url, REDIS_URL: REDIS_URL!, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: config };
    // The first process migrates the fresh schema; the second starts on a migrated one.
    bases = [await startProcess(env)];
    bases.push(await startProcess(env));
  }, 40_000);

  afterAll(async () => {
    for (const child of children.splice(0)) {
      child.kill("SIGTERM");
      await Promise.race([child.exited, Bun.sleep(5_000)]);
      child.kill("SIGKILL");
    }
    await schema?.drop();
  });

  const call = (base: string, path: string, key: string, init: { method?: string; json?: Json } = {}) =>
    fetch(base + path, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(init.json ? { body: JSON.stringify(init.json) } : {}),
    });
  const newKey = async (body: Json) => ((await (await call(bases[0]!, "/keys", ADMIN, { method: "POST", json: { name: "proc", ...body } })).json()) as Json) as { key: string; data: Json };
  const chat = (base: string, key: string, content = "hi") => call(base, "/chat/completions", key, { method: "POST", json: { model: "simulator/small", max_tokens: 100, messages: [{ role: "user", content }] } });

  test("a credit limit holds across processes: of 20 parallel requests over both, exactly the 4 that fit pass", async () => {
    const { key } = await newKey({ limit: 4 * 4.62e-5 });
    const content = "count these words [sim tokens=100 latency=300]";
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(bases[i % 2]!, key, content)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(4);
    expect(replies.filter((r) => r.status === 402)).toHaveLength(16);
  });

  test("a rate limit holds across processes, and a key revoked on one is refused by the other", async () => {
    const { key, data } = await newKey({ rate_limit: { requests: 2, interval_seconds: 3_600 } });
    expect((await chat(bases[0]!, key)).status).toBe(200);
    expect((await chat(bases[1]!, key)).status).toBe(200);
    expect((await chat(bases[0]!, key)).status).toBe(429);
    await call(bases[1]!, `/keys/${data.hash}`, ADMIN, { method: "PATCH", json: { disabled: true } });
    let status = 0;
    for (let i = 0; i < 30 && status !== 401; i++) {
      status = (await chat(bases[0]!, key)).status;
      if (status !== 401) await Bun.sleep(20);
    }
    expect(status).toBe(401);
  });
});
