/**
 * Presets over HTTP (spec "Preset", endpoints 3–4): create from chat / Messages / Responses bodies,
 * versions, reads, delete, and every error status the spec lists for preset creation (400, 401, 403, 404, 409, 500).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import { openStore } from "../../core/store/connect.ts";
import type { Store } from "../../core/store/types.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Version = { id: string; preset_id: string; version: number; config: Record<string, unknown>; system_prompt: string; creator_id: string; created_at: string; updated_at: string };
type Preset = {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  status: string;
  status_updated_at: string | null;
  created_at: string;
  updated_at: string;
  creator_user_id: string;
  workspace_id: string;
  designated_version_id: string;
  designated_version: Version;
};
type Envelope = { error: { code: number; message: string; metadata: Record<string, unknown> } };

let gw: TestGateway;
/** A management key of a second workspace. */
let otherAdmin: string;

beforeAll(async () => {
  gw = await startTestGateway();
  const store = gw.gateway.deps.store;
  const other = await store.workspaces.create("other");
  otherAdmin = newSecret();
  await store.keys.create({ hash: hashSecret(otherAdmin), workspaceId: other.id, name: "other admin", label: labelOf(otherAdmin), isManagement: true, limit: null, limitReset: null, expiresAt: null });
});
afterAll(async () => gw.close());

const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => gw.request(path, { ...init, key: ADMIN_KEY });
const create = (slug: string, json: unknown, format = "chat/completions", key: string | null = ADMIN_KEY) =>
  gw.request(`/presets/${slug}/${format}`, { method: "POST", json, key });
const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: "simulator/small",
  messages: [{ role: "system", content: "Talk like a pirate." }, { role: "user", content: "Hello" }],
  ...extra,
});

describe("create a preset", () => {
  test("from a chat-completions body: every spec field, only overlapping fields stored, system message as system_prompt", async () => {
    const res = await create("pirate", chatBody({ temperature: 0.3, max_tokens: 50, provider: { order: ["simulator"] }, stream: true, user: "u-1", metadata: { a: "b" } }));
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Preset };
    expect(Object.keys(data).sort()).toEqual(["created_at", "creator_user_id", "description", "designated_version", "designated_version_id", "id", "name", "slug", "status", "status_updated_at", "updated_at", "workspace_id"]);
    expect(data.id).toMatch(UUID);
    expect(data.workspace_id).toMatch(UUID);
    expect(data.workspace_id).toBe(gw.gateway.defaultWorkspaceId);
    expect(data).toMatchObject({ slug: "pirate", name: "pirate", description: null, status: "active" });
    for (const stamp of [data.created_at, data.updated_at, data.status_updated_at]) expect(stamp).toMatch(ISO);
    expect(typeof data.creator_user_id).toBe("string");
    const version = data.designated_version;
    expect(data.designated_version_id).toBe(version.id);
    expect(version.id).toMatch(UUID);
    expect(version).toMatchObject({ preset_id: data.id, version: 1, system_prompt: "Talk like a pirate." });
    expect(version.config).toEqual({ model: "simulator/small", temperature: 0.3, max_tokens: 50, provider: { order: ["simulator"] } });
    expect(version.created_at).toMatch(ISO);
    expect(version.updated_at).toMatch(ISO);
  });

  test("posting to an existing slug creates the next version and designates it; older versions stay readable", async () => {
    await create("versions", chatBody({ temperature: 0.1 }));
    const second = (await (await create("versions", chatBody({ temperature: 0.2 }))).json()) as { data: Preset };
    expect(second.data.designated_version.version).toBe(2);
    expect(second.data.designated_version.config.temperature).toBe(0.2);
    const got = (await (await admin("/presets/versions")).json()) as { data: Preset };
    expect(got.data.id).toBe(second.data.id);
    expect(got.data.designated_version_id).toBe(second.data.designated_version.id);
    const list = (await (await admin("/presets/versions/versions")).json()) as { data: Version[]; total_count: number };
    expect(list.total_count).toBe(2);
    expect(list.data.map((v) => [v.version, v.config.temperature])).toEqual([
      [1, 0.1],
      [2, 0.2],
    ]);
    const page = (await (await admin("/presets/versions/versions?offset=1&limit=1")).json()) as { data: Version[] };
    expect(page.data.map((v) => v.version)).toEqual([2]);
    const one = (await (await admin("/presets/versions/versions/1")).json()) as { data: Version };
    expect(one.data).toMatchObject({ version: 1, preset_id: second.data.id, config: { temperature: 0.1 } });
  });

  test("from a Messages body: model and max_tokens in config, `system` as system_prompt", async () => {
    const res = await create("claude-ish", { model: "simulator/large", max_tokens: 256, system: "You are terse.", messages: [{ role: "user", content: "hi" }], stream: false }, "messages");
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Preset };
    expect(data.designated_version.config).toEqual({ model: "simulator/large", max_tokens: 256 });
    expect(data.designated_version.system_prompt).toBe("You are terse.");
  });

  test("from a Responses body: `instructions` as system_prompt, input ignored, max_output_tokens kept", async () => {
    const res = await create("responder", { model: "simulator/small", instructions: "Answer in French.", input: "hi", max_output_tokens: 99, temperature: 1 }, "responses");
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Preset };
    expect(data.designated_version.config).toEqual({ model: "simulator/small", temperature: 1, max_completion_tokens: 99 });
    expect(data.designated_version.system_prompt).toBe("Answer in French.");
  });

  test("a body that names another preset starts from it (flattened into the new version)", async () => {
    await create("base", chatBody({ temperature: 0.4, max_tokens: 12 }));
    const { data } = (await (await create("derived", { preset: "base", messages: [{ role: "user", content: "x" }], temperature: 0.8 })).json()) as { data: Preset };
    expect(data.designated_version.config).toEqual({ model: "simulator/small", temperature: 0.8, max_tokens: 12 });
    expect(data.designated_version.system_prompt).toBe("Talk like a pirate.");
  });

  test("20 concurrent creates on one slug give versions 1..20 exactly once each (or 409s and the rest gap-free)", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => create("busy", chatBody({ seed: i }))));
    const ok = replies.filter((r) => r.status === 200);
    expect(replies.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const versions = (await Promise.all(ok.map(async (r) => ((await r.json()) as { data: Preset }).data.designated_version.version))).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: ok.length }, (_, i) => i + 1));
    const listed = (await (await admin("/presets/busy/versions")).json()) as { data: Version[]; total_count: number };
    expect(listed.total_count).toBe(ok.length);
    expect(new Set(listed.data.map((v) => v.config.seed)).size).toBe(ok.length);
  });
});

describe("read, list and delete", () => {
  test("GET /presets lists the workspace's presets, newest update first, with offset, limit and total_count", async () => {
    await create("list-a", chatBody());
    await Bun.sleep(2);
    await create("list-b", chatBody());
    const all = (await (await admin("/presets")).json()) as { data: Preset[]; total_count: number };
    expect(all.total_count).toBe(all.data.length);
    const slugs = all.data.map((p) => p.slug);
    expect(slugs.indexOf("list-b")).toBeLessThan(slugs.indexOf("list-a"));
    const updated = all.data.map((p) => Date.parse(p.updated_at));
    expect(updated).toEqual([...updated].sort((a, b) => b - a));
    const page = (await (await admin("/presets?offset=1&limit=1")).json()) as { data: Preset[]; total_count: number };
    expect(page.data.length).toBe(1);
    expect(page.data[0]!.slug).toBe(all.data[1]!.slug);
    expect(page.total_count).toBe(all.total_count);
  });

  test("DELETE removes the preset and its versions", async () => {
    await create("doomed", chatBody());
    const res = await admin("/presets/doomed", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: true });
    expect((await admin("/presets/doomed")).status).toBe(404);
    expect((await admin("/presets/doomed/versions")).status).toBe(404);
    expect((await admin("/presets/doomed", { method: "DELETE" })).status).toBe(404);
  });
});

describe("errors", () => {
  test("400: a slug that is not URL-safe", async () => {
    for (const slug of ["a@b", "bad%20slug", "%C3%BC"]) {
      const res = await create(slug, chatBody());
      expect(res.status).toBe(400);
      const body = (await res.json()) as Envelope;
      expect(body.error.message).toContain("Invalid preset slug");
      expect(body.error.metadata.error_type).toBe("invalid_request");
    }
  });

  test("400: a body that is not a valid request of that format; a version that is not a number", async () => {
    expect((await create("x", { model: "m", messages: [] })).status).toBe(400);
    expect((await create("x", { model: "m", messages: [{ role: "user", content: "hi" }], temperature: 7 })).status).toBe(400);
    await create("numbered", chatBody());
    expect((await admin("/presets/numbered/versions/first")).status).toBe(400);
  });

  test("401: no key, or an unknown key", async () => {
    const none = await create("pirate", chatBody(), "chat/completions", null);
    expect(none.status).toBe(401);
    expect(((await none.json()) as Envelope).error.message).toBe("Missing authentication header");
    expect((await gw.request("/presets", { key: null })).status).toBe(401);
    expect((await create("pirate", chatBody(), "messages", "sk-gw-v1-not-a-key")).status).toBe(401);
  });

  test("403: an inference key, with the spec's message", async () => {
    for (const res of [await create("pirate", chatBody(), "chat/completions", gw.inferenceKey), await gw.request("/presets"), await gw.request("/presets/pirate", { method: "DELETE" })]) {
      expect(res.status).toBe(403);
      const body = (await res.json()) as Envelope;
      expect(body.error.message).toBe("Only management keys can perform this operation");
      expect(body.error.metadata.error_type).toBe("permission_denied");
    }
  });

  test("404: unknown preset, unknown version, another workspace's preset, a creation body naming an unknown preset", async () => {
    expect((await admin("/presets/never-made")).status).toBe(404);
    expect((await admin("/presets/pirate/versions/99")).status).toBe(404);
    const other = (path: string) => gw.request(path, { key: otherAdmin });
    expect((await other("/presets/pirate")).status).toBe(404);
    expect((await other("/presets/pirate/versions")).status).toBe(404);
    expect((await other("/presets/pirate/versions/1")).status).toBe(404);
    expect((await gw.request("/presets/pirate", { method: "DELETE", key: otherAdmin })).status).toBe(404);
    expect(((await (await other("/presets")).json()) as { data: Preset[] }).data).toEqual([]);
    const missing = await create("from-missing", { model: "@preset/never-made", messages: [{ role: "user", content: "x" }] });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Envelope).error.message).toBe("Preset not found: never-made");
    // The same slug in another workspace is another preset: ours is untouched.
    const theirs = (await (await create("pirate", chatBody({ temperature: 2 }), "chat/completions", otherAdmin)).json()) as { data: Preset };
    expect(theirs.data.designated_version.version).toBe(1);
    const ours = (await (await admin("/presets/pirate")).json()) as { data: Preset };
    expect(ours.data.id).not.toBe(theirs.data.id);
    expect(ours.data.designated_version.config.temperature).toBe(0.3);
  });
});

describe("errors the store produces (fault-injected store, through HTTP)", () => {
  let faulty: TestGateway;
  let store: Store;
  let mode: "conflict" | "crash" = "conflict";
  beforeAll(async () => {
    store = await openStore("sqlite://:memory:");
    // The repository answers "conflict" when its retries ran out; a database failure throws. Both are injected here
    // because neither happens on demand against a healthy database (the preset row lock prevents the conflict).
    const presets = {
      ...store.presets,
      createVersion: async () => {
        if (mode === "conflict") return "conflict" as const;
        throw new Error("SQLITE_IOERR: disk I/O error at /var/lib/gateway/secret.db");
      },
    };
    faulty = await startTestGateway({ overrides: { store: { ...store, presets } } });
  });
  afterAll(async () => faulty.close());

  test("409 precondition_failed when concurrent writers exhausted the version retries", async () => {
    mode = "conflict";
    const res = await faulty.request("/presets/hot/chat/completions", { method: "POST", key: ADMIN_KEY, json: chatBody() });
    expect(res.status).toBe(409);
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe(409);
    expect(body.error.metadata.error_type).toBe("precondition_failed");
    expect(body.error.message).toContain("Resource conflict, try again later");
  });

  test("500 with a generic message when the database fails; internals never leak", async () => {
    mode = "crash";
    const res = await faulty.request("/presets/hot/messages", { method: "POST", key: ADMIN_KEY, json: { model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } } });
    expect(text).not.toContain("secret.db");
  });
});
