/**
 * The guardrails management API through HTTP: management keys only, the peer's shapes (driven
 * with the official OpenRouter SDK's `guardrails.*`, so its users' scripts work), PATCH replacing collections, 400s
 * naming the field (a pattern with lookaround, over 100,000 characters, an unknown builtin), assignments to keys and
 * to the workspace, workspace scoping, and beta admissions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_PATTERN_LENGTH } from "../../../core/guardrails/pattern/caps.ts";
import { expectError } from "../../support/envelope.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { sdkClient } from "../../support/openrouter-sdk.ts";

type Json = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(() => gw.close());

const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => gw.request(path, { ...init, key: ADMIN_KEY });
const create = async (body: Json) => {
  const res = await admin("/guardrails", { method: "POST", json: body });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).data as Json;
};

describe("guardrails API: who may call it", () => {
  test("no key is 401, an inference key 403, on every route", async () => {
    for (const [method, path] of [
      ["GET", "/guardrails"],
      ["POST", "/guardrails"],
      ["GET", "/guardrails/grd_x"],
      ["PATCH", "/guardrails/grd_x"],
      ["DELETE", "/guardrails/grd_x"],
      ["POST", "/guardrails/grd_x/assignments/keys"],
      ["GET", "/guardrails/assignments/keys"],
      ["POST", "/guardrails/grd_x/assignments/workspace"],
      ["GET", "/beta/alignment/admissions"],
    ] as const) {
      const body = method === "GET" || method === "DELETE" ? {} : { json: {} };
      await expectError(await gw.request(path, { method, key: null, ...body }), 401);
      const forbidden = await expectError(await gw.request(path, { method, ...body }), 403);
      expect(forbidden.error.message).toBe("Only management keys can perform this operation");
    }
  });
});

describe("guardrails API: create, read, update, delete", () => {
  test("create returns the peer's shape with our apply_to; stored-only peer fields come back as sent", async () => {
    const g = await create({
      name: "pii",
      description: "no personal data",
      limit_usd: 5,
      reset_interval: "daily",
      allowed_models: ["simulator/*"],
      content_filters: [{ pattern: "(?i)project-phoenix", action: "block", label: "CODENAME" }],
      content_filter_builtins: [
        { slug: "email", action: "redact" },
        { slug: "regex-prompt-injection", action: "block", scan_scope: "user_only" },
      ],
      apply_to: "both",
      enforce_zdr_openai: true,
      include_byok_in_budgets: true,
    });
    expect(g).toMatchObject({
      name: "pii",
      description: "no personal data",
      limit_usd: 5,
      reset_interval: "daily",
      usage_usd: 0,
      allowed_models: ["simulator/*"],
      ignored_models: null,
      content_filters: [{ pattern: "(?i)project-phoenix", action: "block", label: "CODENAME" }],
      content_filter_builtins: [{ slug: "email", action: "redact" }, { slug: "regex-prompt-injection", action: "block", scan_scope: "user_only" }],
      apply_to: "both",
      enforce_zdr_openai: true,
      enforce_zdr: null,
      include_byok_in_budgets: true,
      workspace_id: expect.any(String),
    });
    expect(g.id).toStartWith("grd_");
    expect(Date.parse(g.created_at)).toBeGreaterThan(0);
    const read = (await (await admin(`/guardrails/${g.id}`)).json()) as Json;
    expect(read.data).toEqual(g);
  });

  test("PATCH changes what it names and replaces collections; null clears; DELETE then 404", async () => {
    const g = await create({ name: "a", allowed_models: ["x/*"], content_filter_builtins: [{ slug: "email", action: "flag" }, { slug: "ssn", action: "block" }] });
    const res = await admin(`/guardrails/${g.id}`, { method: "PATCH", json: { content_filter_builtins: [{ slug: "phone", action: "redact" }], allowed_models: null, name: "b" } });
    expect(res.status).toBe(200);
    const patched = ((await res.json()) as Json).data;
    expect(patched).toMatchObject({ name: "b", allowed_models: null, content_filter_builtins: [{ slug: "phone", action: "redact" }], apply_to: "input" });
    expect(Date.parse(patched.updated_at)).toBeGreaterThanOrEqual(Date.parse(g.updated_at));
    expect((await admin(`/guardrails/${g.id}`, { method: "DELETE" })).status).toBe(200);
    await expectError(await admin(`/guardrails/${g.id}`), 404);
    await expectError(await admin(`/guardrails/${g.id}`, { method: "DELETE" }), 404);
  });

  test("bad bodies are 400s naming the field", async () => {
    const cases: Array<[Json, string]> = [
      [{ name: "x", content_filters: [{ pattern: "(?<=a)b", action: "block" }] }, "content_filters[0].pattern"],
      [{ name: "x", content_filters: [{ pattern: "(a)\\1", action: "block" }] }, "content_filters[0].pattern"],
      [{ name: "x", content_filters: [{ pattern: "a".repeat(MAX_PATTERN_LENGTH + 1), action: "block" }] }, "content_filters[0].pattern"],
      [{ name: "x", content_filter_builtins: [{ slug: "emails", action: "block" }] }, "content_filter_builtins[0].slug"],
      [{ name: "x", content_filter_builtins: [{ slug: "email", action: "block" }, { slug: "email", action: "flag" }] }, "content_filter_builtins[1].slug"],
    ];
    for (const [body, param] of cases) {
      const err = await expectError(await admin("/guardrails", { method: "POST", json: body }), 400, param);
      expect(err.error.message).toStartWith(param);
    }
    await expectError(await admin("/guardrails", { method: "POST", json: { name: "x", content_filters: [{ pattern: "x", action: "delete" }] } }), 400);
    await expectError(await admin("/guardrails", { method: "POST", json: { name: "x", apply_to: "sideways" } }), 400);
    await expectError(await admin("/guardrails", { method: "POST", json: { name: "x", unknown_field: 1 } }), 400);
    // A pattern of exactly 100,000 characters is accepted.
    await create({ name: "long", content_filters: [{ pattern: "a".repeat(MAX_PATTERN_LENGTH), action: "flag" }] });
  });

  test("list pages with offset and limit (1–100) and counts all", async () => {
    const before = ((await (await admin("/guardrails?limit=100")).json()) as Json).total_count as number;
    for (const name of ["p1", "p2", "p3"]) await create({ name });
    const page = (await (await admin(`/guardrails?offset=${before + 1}&limit=1`)).json()) as Json;
    expect(page.total_count).toBe(before + 3);
    expect(page.data.map((g: Json) => g.name)).toEqual(["p2"]);
    await expectError(await admin("/guardrails?limit=0"), 400, "limit");
    await expectError(await admin("/guardrails?limit=101"), 400, "limit");
  });
});

describe("guardrails API: assignments", () => {
  test("to keys: counted once, listed with the key's name and label, removed; unknown keys are 400s", async () => {
    const g = await create({ name: "assign" });
    const assign = (hashes: string[], remove = false) => admin(`/guardrails/${g.id}/assignments/keys${remove ? "/remove" : ""}`, { method: "POST", json: { key_hashes: hashes } });
    expect(await (await assign([gw.inferenceKeyHash])).json()).toEqual({ assigned_count: 1 });
    expect(await (await assign([gw.inferenceKeyHash])).json()).toEqual({ assigned_count: 0 });
    await expectError(await assign(["nope"]), 400, "key_hashes[0]");
    await expectError(await admin(`/guardrails/${g.id}/assignments/keys`, { method: "POST", json: { key_hashes: [] } }), 400);
    const list = (await (await admin(`/guardrails/${g.id}/assignments/keys`)).json()) as Json;
    expect(list.total_count).toBe(1);
    expect(list.data[0]).toMatchObject({ guardrail_id: g.id, key_hash: gw.inferenceKeyHash, key_name: "test inference key", key_label: expect.stringContaining("sk-gw-v1-"), assigned_by: null });
    const all = (await (await admin("/guardrails/assignments/keys")).json()) as Json;
    expect(all.data.some((a: Json) => a.guardrail_id === g.id)).toBe(true);
    expect(await (await assign([gw.inferenceKeyHash], true)).json()).toEqual({ unassigned_count: 1, removed_count: 1 });
    expect(((await (await admin(`/guardrails/${g.id}/assignments/keys`)).json()) as Json).total_count).toBe(0);
    await expectError(await admin("/guardrails/grd_missing/assignments/keys", { method: "POST", json: { key_hashes: [gw.inferenceKeyHash] } }), 404);
  });

  test("to the workspace (our stand-in for members): with no body, listed, removed", async () => {
    const g = await create({ name: "ws" });
    expect(await (await admin(`/guardrails/${g.id}/assignments/workspace`, { method: "POST" })).json()).toEqual({ assigned_count: 1 });
    const list = (await (await admin(`/guardrails/${g.id}/assignments/workspace`)).json()) as Json;
    expect(list.data).toEqual([{ id: expect.any(String), guardrail_id: g.id, workspace_id: g.workspace_id, assigned_by: null, created_at: expect.any(String) }]);
    await expectError(await admin(`/guardrails/${g.id}/assignments/workspace`, { method: "POST", json: { workspace_ids: ["another"] } }), 400, "workspace_ids");
    expect(await (await admin(`/guardrails/${g.id}/assignments/workspace/remove`, { method: "POST", json: {} })).json()).toEqual({ unassigned_count: 1, removed_count: 1 });
  });
});

describe("guardrails API through the official OpenRouter SDK", () => {
  test("create, get, update, list, bulk-assign keys, list assignments, unassign, delete", async () => {
    const { sdk } = sdkClient(gw, ADMIN_KEY);
    const created = await sdk.guardrails.create({
      createGuardrailRequest: { name: "sdk", limitUsd: 3, resetInterval: "weekly", contentFilterBuiltins: [{ slug: "ssn", action: "block" }], contentFilters: [{ pattern: "secret-\\d+", action: "redact" }] },
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ name: "sdk", limitUsd: 3, resetInterval: "weekly", includeByokInBudgets: false });
    expect((await sdk.guardrails.get({ id })).data.contentFilterBuiltins).toEqual([{ slug: "ssn", action: "block" }]);
    const updated = await sdk.guardrails.update({ id, updateGuardrailRequest: { name: "sdk2", allowedProviders: ["simulator"] } });
    expect(updated.data).toMatchObject({ name: "sdk2", allowedProviders: ["simulator"] });
    const page = await sdk.guardrails.list({ limit: 100 });
    expect(page.result.data.some((g) => g.id === id)).toBe(true);
    expect((await sdk.guardrails.bulkAssignKeys({ id, bulkAssignKeysRequest: { keyHashes: [gw.inferenceKeyHash] } })).assignedCount).toBe(1);
    const assignments = await sdk.guardrails.listGuardrailKeyAssignments({ id });
    expect(assignments.result.data.map((a) => a.keyHash)).toEqual([gw.inferenceKeyHash]);
    expect((await sdk.guardrails.listKeyAssignments()).result.data.some((a) => a.guardrailId === id)).toBe(true);
    expect((await sdk.guardrails.bulkUnassignKeys({ id, bulkUnassignKeysRequest: { keyHashes: [gw.inferenceKeyHash] } })).unassignedCount).toBe(1);
    expect((await sdk.guardrails.delete({ id })).deleted).toBe(true);
  });
});

describe("beta admissions", () => {
  test("admit a key or the workspace, list, remove; unknown features are 404", async () => {
    const admit = (body: Json, remove = false) => admin(`/beta/alignment/admissions${remove ? "/remove" : ""}`, { method: "POST", json: body });
    expect(await (await admit({ key_hashes: [gw.inferenceKeyHash] })).json()).toEqual({ admitted_count: 1 });
    expect(await (await admit({ workspace: true })).json()).toEqual({ admitted_count: 1 });
    const list = (await (await admin("/beta/alignment/admissions")).json()) as Json;
    expect(list.data.map((a: Json) => a.scope).sort()).toEqual(["key", "workspace"]);
    expect(await (await admit({ key_hashes: [gw.inferenceKeyHash], workspace: true }, true)).json()).toEqual({ removed_count: 2 });
    await expectError(await admit({}), 400);
    await expectError(await admin("/beta/telepathy/admissions"), 404);
  });
});
