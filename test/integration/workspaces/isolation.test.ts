/**
 * Isolation between workspaces (README "Workspaces"): a workspace's own management key, made by the operator with
 * `POST /keys {workspace_id, is_management_key: true}`, manages its workspace only. Every kind of object of another
 * workspace — key, preset, guardrail, batch, container, generation, usage — reads as missing (404), also when it
 * names that workspace; the operator reaches any workspace by naming it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

let gw: TestGateway;
let teamId: string;
let teamAdmin: string;
let teamUser: string;
const home: Record<string, string> = {};

const call = async (path: string, key: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await gw.request(path, { ...init, key });
  return { status: response.status, body: (await response.json().catch(() => null)) as any };
};

beforeAll(async () => {
  gw = await startTestGateway({ file: { sandbox: {} } });
  const ws = await call("/workspaces", ADMIN_KEY, { method: "POST", json: { name: "Team", slug: "team" } });
  teamId = ws.body.data.id;
  const manager = await call("/keys", ADMIN_KEY, { method: "POST", json: { name: "team manager", workspace_id: teamId, is_management_key: true } });
  expect(manager.status).toBe(201);
  expect(manager.body.data).toMatchObject({ workspace_id: teamId, is_management_key: true });
  teamAdmin = manager.body.key;

  // One object of each kind in the default workspace.
  home.key = gw.inferenceKeyHash;
  const preset = await call("/presets/home-preset/chat/completions", ADMIN_KEY, { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "x" }] } });
  expect(preset.status).toBe(200);
  const guardrail = await call("/guardrails", ADMIN_KEY, { method: "POST", json: { name: "home guardrail" } });
  home.guardrail = guardrail.body.data.id;
  const batch = await call("/batches", gw.inferenceKey, {
    method: "POST",
    json: { endpoint: "/v1/chat/completions", model: "simulator/small", requests: [{ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { messages: [{ role: "user", content: "hi" }] } }] },
  });
  expect(batch.status).toBe(202);
  home.batch = batch.body.id;
  const container = await gw.gateway.deps.containers!.forRequest({ workspaceId: gw.gateway.defaultWorkspaceId }).open({});
  home.container = container.id;
  const chat = await call("/chat/completions", gw.inferenceKey, { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }] } });
  home.generation = chat.body.id;
  await gw.gateway.deps.ledger.flush();
});
afterAll(async () => gw.close());

describe("a workspace's management key", () => {
  test("makes inference keys in its own workspace only, never management keys", async () => {
    const made = await call("/keys", teamAdmin, { method: "POST", json: { name: "team user" } });
    expect(made.status).toBe(201);
    expect(made.body.data.workspace_id).toBe(teamId);
    teamUser = made.body.key;
    const manager = await call("/keys", teamAdmin, { method: "POST", json: { name: "another manager", is_management_key: true } });
    expect(manager.status).toBe(403);
    const elsewhere = await call("/keys", teamAdmin, { method: "POST", json: { name: "elsewhere", workspace_id: gw.gateway.defaultWorkspaceId } });
    expect(elsewhere.status).toBe(404);
  });

  test("every object of another workspace reads as missing (404)", async () => {
    const paths: Array<[string, string]> = [
      ["GET", `/keys/${home.key}`],
      ["PATCH", `/keys/${home.key}`],
      ["DELETE", `/keys/${home.key}`],
      ["GET", "/presets/home-preset"],
      ["GET", "/presets/home-preset/versions"],
      ["DELETE", "/presets/home-preset"],
      ["GET", `/guardrails/${home.guardrail}`],
      ["PATCH", `/guardrails/${home.guardrail}`],
      ["DELETE", `/guardrails/${home.guardrail}`],
      ["GET", `/guardrails/${home.guardrail}/assignments/keys`],
      ["GET", `/batches/${home.batch}`],
      ["POST", `/batches/${home.batch}/cancel`],
      ["DELETE", `/batches/${home.batch}`],
      ["GET", `/containers/${home.container}`],
      ["GET", `/containers/${home.container}/files`],
      ["DELETE", `/containers/${home.container}`],
      ["GET", `/generation?id=${home.generation}`],
      ["GET", `/workspaces/${gw.gateway.defaultWorkspaceId}`],
      ["GET", `/workspaces/${gw.gateway.defaultWorkspaceId}/budgets`],
    ];
    for (const [method, path] of paths) {
      const json = method === "PATCH" ? { name: "taken over" } : undefined;
      const answer = await call(path, teamAdmin, { method, ...(json ? { json } : {}) });
      expect([method, path, answer.status]).toEqual([method, path, 404]);
    }
    // The team's inference key cannot read the home generation either.
    expect((await call(`/generation?id=${home.generation}`, teamUser)).status).toBe(404);
  });

  test("lists show only its workspace; naming another workspace is a 404", async () => {
    const keys = await call("/keys", teamAdmin);
    expect(new Set(keys.body.data.map((k: { workspace_id: string }) => k.workspace_id))).toEqual(new Set([teamId]));
    expect((await call("/presets", teamAdmin)).body.data).toEqual([]);
    expect((await call("/guardrails", teamAdmin)).body.data).toEqual([]);
    expect((await call("/batches", teamAdmin)).body.data).toEqual([]);
    expect((await call("/containers", teamAdmin)).body.data).toEqual([]);
    expect((await call("/generations", teamAdmin)).body.data).toEqual([]);
    const workspaces = await call("/workspaces", teamAdmin);
    expect(workspaces.body.data.map((w: { id: string }) => w.id)).toEqual([teamId]);
    for (const path of ["/keys", "/presets", "/guardrails", "/batches", "/containers", "/generations", "/usage"]) {
      const answer = await call(`${path}?workspace_id=${gw.gateway.defaultWorkspaceId}`, teamAdmin);
      expect([path, answer.status]).toEqual([path, 404]);
    }
  });

  test("cannot create or delete workspaces, nor set their budgets", async () => {
    expect((await call("/workspaces", teamAdmin, { method: "POST", json: { name: "x", slug: "x" } })).status).toBe(403);
    expect((await call(`/workspaces/${teamId}`, teamAdmin, { method: "DELETE" })).status).toBe(403);
    expect((await call(`/workspaces/${teamId}/budgets/daily`, teamAdmin, { method: "PUT", json: { limit_usd: 100 } })).status).toBe(403);
    // It may rename its own.
    expect((await call(`/workspaces/${teamId}`, teamAdmin, { method: "PATCH", json: { name: "Team renamed" } })).status).toBe(200);
  });

  test("the team's inference key runs inference (the openai client), and its generation is the team's", async () => {
    const client = new OpenAI({ apiKey: teamUser, baseURL: gw.baseUrl, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "team call" }] });
    await gw.gateway.deps.ledger.flush();
    expect((await call(`/generation?id=${reply.id}`, teamAdmin)).body.data.workspace_id).toBe(teamId);
    expect((await call(`/generation?id=${reply.id}`, ADMIN_KEY)).status).toBe(404);
    expect((await call(`/generation?id=${reply.id}&workspace_id=${teamId}`, ADMIN_KEY)).status).toBe(200);
  });
});

describe("the operator", () => {
  test("reaches another workspace's objects by naming it", async () => {
    const keys = await call(`/keys?workspace_id=${teamId}`, ADMIN_KEY);
    expect(keys.body.data.length).toBe(2);
    const guardrail = await call("/guardrails", ADMIN_KEY, { method: "POST", json: { name: "team guardrail", workspace_id: teamId } });
    expect(guardrail.status).toBe(201);
    expect(guardrail.body.data.workspace_id).toBe(teamId);
    expect((await call(`/guardrails/${guardrail.body.data.id}`, teamAdmin)).status).toBe(200);
    expect((await call(`/guardrails/${guardrail.body.data.id}`, ADMIN_KEY)).status).toBe(404);
    expect((await call(`/keys?workspace_id=00000000-0000-4000-8000-00000000dead`, ADMIN_KEY)).status).toBe(404);
  });
});
