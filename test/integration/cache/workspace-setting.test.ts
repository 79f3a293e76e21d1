/**
 * A workspace's own response-cache default (README "Response cache"): `settings.cache` on `PATCH /workspaces/{id}`,
 * checked like a key's (its TTL bounded by `cache.max_ttl_seconds`), applying to the workspace's requests that send no
 * header; a key's setting and the header win over it, and another workspace is unaffected. The model is a loopback
 * upstream that counts its calls, so a hit is seen by the upstream not being asked again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

const MODEL = "acme/cached";
let up: FaultUpstream;
let gw: TestGateway;

beforeAll(async () => {
  up = startFaultUpstream("acme");
  gw = await startTestGateway({
    file: { cache: { max_ttl_seconds: 600 }, providers: [{ id: "acme", adapter: "openai", base_url: up.url, api_key: "k", models: [{ id: MODEL, upstream_model: "m" }] }] },
  });
});
afterAll(async () => {
  await gw.close();
  up.stop();
});

const admin = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await gw.request(path, { ...init, key: ADMIN_KEY });
  return { status: response.status, body: (await response.json()) as Json };
};

async function workspace(slug: string, settings: Json = {}): Promise<{ id: string; key: string }> {
  const made = await admin("/workspaces", { method: "POST", json: { name: slug, slug, settings } });
  expect(made.status).toBe(201);
  const key = await admin("/keys", { method: "POST", json: { name: `${slug} key`, workspace_id: made.body.data.id } });
  expect(key.status).toBe(201);
  return { id: made.body.data.id, key: key.body.key };
}

const ask = (key: string, content: string, headers: Record<string, string> = {}) =>
  gw.request("/chat/completions", { method: "POST", key, headers, json: { model: MODEL, messages: [{ role: "user", content }] } });

/** Sends the same request twice; what the cache said each time and how many calls reached the upstream. */
async function twice(key: string, headers: Record<string, string> = {}): Promise<{ said: (string | null)[]; calls: number }> {
  const content = `same question ${crypto.randomUUID()}`;
  const before = up.requests.length;
  const said: (string | null)[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await ask(key, content, headers);
    expect(response.status).toBe(200);
    said.push(response.headers.get("x-service-cache"));
  }
  return { said, calls: up.requests.length - before };
}

describe("settings.cache on a workspace", () => {
  test("checked like a key's: a TTL at cache.max_ttl_seconds is kept, one second more is a 400 naming the field", async () => {
    const ws = await workspace("cache-checks");
    const over = await admin(`/workspaces/${ws.id}`, { method: "PATCH", json: { settings: { cache: { enabled: true, ttl_seconds: 601 } } } });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain("settings.cache.ttl_seconds");
    const malformed = await admin(`/workspaces/${ws.id}`, { method: "PATCH", json: { settings: { cache: { ttl_seconds: 60 } } } });
    expect(malformed.status).toBe(400);
    const zero = await admin(`/workspaces/${ws.id}`, { method: "PATCH", json: { settings: { cache: { enabled: true, ttl_seconds: 0 } } } });
    expect(zero.status).toBe(400);
    const at = await admin(`/workspaces/${ws.id}`, { method: "PATCH", json: { settings: { cache: { enabled: true, ttl_seconds: 600 } } } });
    expect(at.status).toBe(200);
    expect((await admin(`/workspaces/${ws.id}`)).body.data.settings.cache).toEqual({ enabled: true, ttl_seconds: 600 });
  });

  test("a workspace with the cache on: the second identical request is a HIT with no header; another workspace is unaffected", async () => {
    const on = await workspace("cache-on", { cache: { enabled: true } });
    const off = await workspace("cache-off");
    expect(await twice(on.key)).toEqual({ said: ["MISS", "HIT"], calls: 1 });
    expect(await twice(off.key)).toEqual({ said: [null, null], calls: 2 });
    // The request's own header still opts out.
    expect(await twice(on.key, { "X-Service-Cache": "false" })).toEqual({ said: [null, null], calls: 2 });
  });

  test("a key's enabled: false beats its workspace's default; removing the workspace's setting (null) turns it off", async () => {
    const ws = await workspace("cache-key-wins", { cache: { enabled: true, ttl_seconds: 300 } });
    const made = await admin("/keys", { method: "POST", json: { name: "no cache", workspace_id: ws.id, cache: { enabled: false } } });
    expect(made.status).toBe(201);
    expect(await twice(made.body.key)).toEqual({ said: [null, null], calls: 2 });
    expect(await twice(ws.key)).toEqual({ said: ["MISS", "HIT"], calls: 1 });
    const cleared = await admin(`/workspaces/${ws.id}`, { method: "PATCH", json: { settings: { cache: null } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.settings.cache).toBeNull();
    expect(await twice(ws.key)).toEqual({ said: [null, null], calls: 2 });
  });
});
