/** Key management through HTTP: hashed storage, workspace scoping, revocation at once, usage in USD. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashSecret } from "../../core/auth/key-material.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

const admin = { key: ADMIN_KEY };
const chat = (key: string) =>
  gw.request("/chat/completions", { method: "POST", key, json: { model: "simulator/small", messages: [{ role: "user", content: "count me" }] } });

async function createKey(body: Record<string, unknown>) {
  const res = await gw.request("/keys", { ...admin, method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as { key: string; data: Record<string, unknown> } };
}

describe("keys", () => {
  test("create returns the secret once and stores only its hash", async () => {
    const { status, body } = await createKey({ name: "ci", limit: 5, limit_reset: "monthly" });
    expect(status).toBe(201);
    expect(body.key).toMatch(/^sk-gw-v1-/);
    expect(body.data).toMatchObject({ name: "ci", disabled: false, limit: 5, limit_remaining: 5, usage: 0, limit_reset: "monthly" });
    expect(body.data.hash).toBe(hashSecret(body.key));
    expect(String(body.data.label)).not.toContain(body.key.slice(12));
    const stored = await gw.gateway.deps.store.keys.findByHash(hashSecret(body.key));
    expect(JSON.stringify(stored)).not.toContain(body.key);
    const got = await gw.request(`/keys/${body.data.hash}`, admin);
    expect(((await got.json()) as { data: { name: string } }).data.name).toBe("ci");
  });

  test("list, patch, delete", async () => {
    const { body } = await createKey({ name: "to-change" });
    const hash = String(body.data.hash);
    const list = (await (await gw.request("/keys", admin)).json()) as { data: Array<{ hash: string }> };
    expect(list.data.some((k) => k.hash === hash)).toBe(true);
    const patched = await gw.request(`/keys/${hash}`, { ...admin, method: "PATCH", json: { name: "changed", limit: 1.5 } });
    expect(((await patched.json()) as { data: Record<string, unknown> }).data).toMatchObject({ name: "changed", limit: 1.5 });
    const deleted = await gw.request(`/keys/${hash}`, { ...admin, method: "DELETE" });
    expect(await deleted.json()).toEqual({ deleted: true });
    expect((await gw.request(`/keys/${hash}`, admin)).status).toBe(404);
  });

  test("disabled and deleted keys get 401 at once", async () => {
    const { body } = await createKey({ name: "revoked" });
    expect((await chat(body.key)).status).toBe(200);
    await gw.request(`/keys/${body.data.hash}`, { ...admin, method: "PATCH", json: { disabled: true } });
    expect((await chat(body.key)).status).toBe(401);
    await gw.request(`/keys/${body.data.hash}`, { ...admin, method: "PATCH", json: { disabled: false } });
    expect((await chat(body.key)).status).toBe(200);
    await gw.request(`/keys/${body.data.hash}`, { ...admin, method: "DELETE" });
    expect((await chat(body.key)).status).toBe(401);
  });

  test("expired keys get 401; expiry in the past is refused", async () => {
    expect((await createKey({ name: "past", expires_at: "2001-01-01T00:00:00Z" })).status).toBe(400);
    const { body } = await createKey({ name: "soon", expires_at: new Date(Date.now() + 400).toISOString() });
    expect((await chat(body.key)).status).toBe(200);
    await Bun.sleep(500);
    expect((await chat(body.key)).status).toBe(401);
  });

  test("GET /key shows the calling key's usage in USD after requests", async () => {
    const { body } = await createKey({ name: "metered", limit: 1 });
    const res = await chat(body.key);
    const cost = ((await res.json()) as { usage: { cost: number } }).usage.cost;
    expect(cost).toBeGreaterThan(0);
    const me = (await (await gw.request("/key", { key: body.key })).json()) as { data: Record<string, number | boolean> };
    expect(me.data.is_management_key).toBe(false);
    expect(me.data.usage).toBeCloseTo(cost, 12);
    expect(me.data.limit_remaining).toBeCloseTo(1 - cost, 12);
    await gw.gateway.deps.ledger.flush();
    const after = (await (await gw.request("/key", { key: body.key })).json()) as { data: Record<string, number> };
    expect(after.data.usage).toBeCloseTo(cost, 12);
  });

  test("GET /generation returns the stored record, scoped to the workspace", async () => {
    const res = await chat(gw.inferenceKey);
    const id = res.headers.get("x-generation-id")!;
    const body = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number; cost: number } };
    await gw.gateway.deps.ledger.flush();
    const gen = (await (await gw.request(`/generation?id=${id}`)).json()) as { data: Record<string, unknown> };
    expect(gen.data).toMatchObject({ id, model: "simulator/small", provider_name: "simulator", tokens_prompt: body.usage.prompt_tokens, tokens_completion: body.usage.completion_tokens });
    expect(gen.data.total_cost as number).toBeCloseTo(body.usage.cost, 12);
    expect((await gw.request(`/generation?id=gen-unknown`)).status).toBe(404);
  });

  test("a key of another workspace is invisible (404)", async () => {
    const other = await gw.gateway.deps.store.workspaces.create("other");
    const record = await gw.gateway.deps.store.keys.create({
      hash: hashSecret("sk-other"),
      workspaceId: other.id,
      name: "foreign",
      label: "x",
      isManagement: false,
      limit: null,
      limitReset: null,
      expiresAt: null,
    });
    expect((await gw.request(`/keys/${record.hash}`, admin)).status).toBe(404);
    expect((await gw.request(`/keys/${record.hash}`, { ...admin, method: "DELETE" })).status).toBe(404);
    expect((await gw.request(`/keys/${record.hash}`, { ...admin, method: "PATCH", json: { disabled: true } })).status).toBe(404);
    const listed = (await (await gw.request("/keys", admin)).json()) as { data: Array<{ hash: string }> };
    expect(listed.data.some((k) => k.hash === record.hash)).toBe(false);
    // The foreign key's own generations are not visible to this workspace either.
    expect((await gw.gateway.deps.store.keys.findByHash(record.hash))?.workspaceId).toBe(other.id);
  });
});
