/**
 * The workspaces management API through the official OpenRouter SDK (`workspaces.*`), whose zod schemas parse every
 * answer: create, list, get, rename, delete (409 with live keys unless `?with_keys=true`, which disables them),
 * budgets per interval, and the member calls refused with a reason. Keys are created into a workspace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { sdkClient, type SdkRig } from "../../support/openrouter-sdk.ts";

let gw: TestGateway;
let admin: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway();
  admin = sdkClient(gw, ADMIN_KEY);
});
afterAll(async () => gw.close());

const adminJson = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await gw.request(path, { ...init, key: ADMIN_KEY });
  return { status: response.status, body: (await response.json()) as any };
};

describe("workspaces through the SDK", () => {
  test("create, get, list, rename and delete; the SDK parses each answer", async () => {
    const created = await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Team A", slug: "team-a", description: "first team" } });
    expect(created.data).toMatchObject({ name: "Team A", slug: "team-a", description: "first team", createdBy: null, defaultGuardrailId: "" });
    const id = created.data.id;
    expect((await admin.sdk.workspaces.get({ id })).data.name).toBe("Team A");

    const list = await admin.sdk.workspaces.list({});
    expect(list.result.totalCount).toBe(2);
    expect(list.result.data.map((w) => w.slug)).toEqual(["default", "team-a"]);

    const renamed = await admin.sdk.workspaces.update({ id, updateWorkspaceRequest: { name: "Team Alpha" } });
    expect(renamed.data).toMatchObject({ id, name: "Team Alpha", slug: "team-a" });
    expect(renamed.data.updatedAt).not.toBeNull();

    expect((await admin.sdk.workspaces.delete({ id })).deleted).toBe(true);
    const missing = await adminJson(`/workspaces/${id}`);
    expect(missing.status).toBe(404);
  });

  test("a slug is unique (409), and a workspace is found by its slug too", async () => {
    await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Twice", slug: "twice" } });
    const again = await adminJson("/workspaces", { method: "POST", json: { name: "Twice again", slug: "twice" } });
    expect(again.status).toBe(409);
    expect(again.body.error.metadata.error_type).toBe("precondition_failed");
    expect((await admin.sdk.workspaces.get({ id: "twice" })).data.name).toBe("Twice");
  });

  test("a workspace with live keys is not deleted until they are, or with ?with_keys=true (which disables them)", async () => {
    const { data: ws } = await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Keyed", slug: "keyed" } });
    const made = await adminJson("/keys", { method: "POST", json: { name: "in keyed", workspace_id: ws.id } });
    expect(made.status).toBe(201);
    expect(made.body.data.workspace_id).toBe(ws.id);
    const key = made.body.key as string;
    expect((await gw.request("/key", { key })).status).toBe(200);

    const refused = await adminJson(`/workspaces/${ws.id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.metadata.error_type).toBe("precondition_failed");
    expect(refused.body.error.message).toContain("1 live API key");

    const deleted = await adminJson(`/workspaces/${ws.id}?with_keys=true`, { method: "DELETE" });
    expect(deleted).toEqual({ status: 200, body: { deleted: true } });
    expect((await gw.request("/key", { key })).status).toBe(401);
  });

  test("a workspace whose keys were all deleted is deleted without with_keys", async () => {
    const { data: ws } = await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Emptied", slug: "emptied" } });
    const made = await adminJson("/keys", { method: "POST", json: { name: "soon gone", workspace_id: ws.id } });
    // The operator names the workspace the key is in.
    expect((await adminJson(`/keys/${made.body.data.hash}`, { method: "DELETE" })).status).toBe(404);
    expect((await adminJson(`/keys/${made.body.data.hash}?workspace_id=${ws.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await admin.sdk.workspaces.delete({ id: ws.id })).deleted).toBe(true);
  });

  test("the default workspace is not deleted", async () => {
    const list = await admin.sdk.workspaces.list({});
    const id = list.result.data.find((w) => w.slug === "default")!.id;
    const refused = await adminJson(`/workspaces/${id}?with_keys=true`, { method: "DELETE" });
    expect(refused.status).toBe(409);
  });

  test("budgets per interval: set, get, list, delete", async () => {
    const { data: ws } = await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Budgeted", slug: "budgeted" } });
    const set = await admin.sdk.workspaces.setBudget({ workspaceRef: ws.id, interval: "daily", upsertWorkspaceBudgetRequest: { limitUsd: 2.5, includeByokInBudgets: true } });
    expect(set.data).toMatchObject({ workspaceId: ws.id, limitUsd: 2.5, resetInterval: "daily" });
    expect(set.includeByokInBudgets).toBe(true);
    await admin.sdk.workspaces.setBudget({ workspaceRef: "budgeted", interval: "lifetime", upsertWorkspaceBudgetRequest: { limitUsd: 10 } });
    const listed = await admin.sdk.workspaces.listBudgets({ workspaceRef: ws.id });
    expect(listed.data.map((b) => [b.resetInterval, b.limitUsd])).toEqual([["daily", 2.5], [null, 10]]);
    expect((await admin.sdk.workspaces.getBudget({ workspaceRef: ws.id, interval: "lifetime" })).data.limitUsd).toBe(10);
    expect((await admin.sdk.workspaces.deleteBudget({ workspaceRef: ws.id, interval: "daily" })).deleted).toBe(true);
    expect((await adminJson(`/workspaces/${ws.id}/budgets/daily`)).status).toBe(404);
    expect((await adminJson(`/workspaces/${ws.id}/budgets/hourly`)).status).toBe(400);
  });

  test("member calls answer a clear error: the gateway has no user accounts", async () => {
    const { data: ws } = await admin.sdk.workspaces.create({ createWorkspaceRequest: { name: "Members", slug: "members" } });
    for (const call of [
      () => admin.sdk.workspaces.listMembers({ id: ws.id }),
      () => admin.sdk.workspaces.bulkAddMembers({ id: ws.id, bulkAddWorkspaceMembersRequest: { userIds: ["u1"] } }),
    ]) {
      const error = (await call().then(() => undefined, (e: unknown) => e)) as { statusCode?: number; body?: string };
      expect(error?.statusCode).toBe(400);
      expect(error.body).toContain("this gateway has none");
    }
  });

  test("hosted-service features turned on are refused, not dropped", async () => {
    const refused = await adminJson("/workspaces", { method: "POST", json: { name: "Logged", slug: "logged", is_observability_io_logging_enabled: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("is_observability_io_logging_enabled");
  });
});
