/**
 * The container files API over HTTP (spec "Container file", operation 6): listing order and every
 * cursor rule (limit pages, `after` from any id, the scan bound on directory markers), metadata, content, deletion,
 * auth, workspace isolation, expiry and the store's outage.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import OpenAI from "openai";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import type { ContainerHandle, ContainerRequest } from "../../core/containers/contract.ts";
import { expectError } from "../support/envelope.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { EXEC, hostBashSandbox } from "../support/host-bash-sandbox.ts";

type ContainerFile = { id: string; object: string; container_id: string; path: string; bytes: number; created_at: number; source: string };
type Page = { object: string; data: ContainerFile[]; first_id: string | null; last_id: string | null; has_more: boolean };

/** Small, so a test reaches it with a handful of directories. */
const SCAN_BOUND = 3;
const FILES = ["a.txt", "b-x.txt", "b/c.txt", "b/d/e.txt", "notes/2024/jan.md", "out/report.csv", "z.txt", "ü.txt"];

let gw: TestGateway;
let skewMs = 0;
let otherAdmin: string;
let otherWorkspaceId: string;
/** A host directory outside every container. */
let outside: string;
let box: ContainerHandle;

const idOf = (path: string) => "cfile_" + Buffer.from(path).toString("base64url");
const pathOf = (id: string) => Buffer.from(id.slice("cfile_".length), "base64url").toString();
const open = (request: ContainerRequest = {}, workspaceId = gw.gateway.defaultWorkspaceId) => gw.gateway.deps.containers!.forRequest({ workspaceId }).open(request);
const get = (path: string, key: string | null = ADMIN_KEY) => gw.request(path, { key });

async function list(id: string, query = "", key: string | null = ADMIN_KEY): Promise<Page> {
  const res = await get(`/containers/${id}/files${query}`, key);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

/** The spec's rules every page must keep. */
function checkRules(page: Page): void {
  expect(page.object).toBe("list");
  expect(page.first_id).toBe(page.data[0]?.id ?? null);
  if (page.has_more) expect(page.last_id).not.toBeNull();
  if (page.last_id === null) expect({ has_more: page.has_more, data: page.data }).toEqual({ has_more: false, data: [] });
  // last_id is the last file's id, unless the page stopped at the scan bound: then a directory marker.
  if (page.last_id !== null && page.last_id !== page.data.at(-1)?.id) expect(pathOf(page.last_id).endsWith("/")).toBe(true);
}

/** The whole listing: every page from the start, following last_id. */
const listing = async (id: string, limit?: number) => (await allPages(id, limit)).flatMap((page) => page.data);

/** Every page from the start, following last_id. */
async function allPages(id: string, limit?: number): Promise<Page[]> {
  const pages: Page[] = [];
  let after: string | null = null;
  do {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set("limit", String(limit));
    if (after !== null) params.set("after", after);
    const page = await list(id, `?${params}`);
    checkRules(page);
    pages.push(page);
    after = page.has_more ? page.last_id : null;
    expect(pages.length).toBeLessThan(100);
  } while (after !== null);
  return pages;
}

beforeAll(async () => {
  gw = await startTestGateway({
    file: { sandbox: { list_scan_bound: SCAN_BOUND } },
    overrides: { sandboxBackend: hostBashSandbox(), clock: { now: () => Date.now() + skewMs } },
  });
  const store = gw.gateway.deps.store;
  const other = await store.workspaces.create("other");
  otherWorkspaceId = other.id;
  otherAdmin = newSecret();
  await store.keys.create({ hash: hashSecret(otherAdmin), workspaceId: other.id, name: "other admin", label: labelOf(otherAdmin), isManagement: true, limit: null, limitReset: null, expiresAt: null });
  outside = await mkdtemp(join(tmpdir(), "outside-"));
  await writeFile(join(outside, "secret.txt"), "host secret");
  box = await open();
  const made = await box.exec(`mkdir -p b/d notes/2024 out && for f in ${FILES.join(" ")}; do printf '%s' "$f" > "$f"; done && ln -s ${outside}/secret.txt leak && ln -s ${outside} leakdir`, EXEC);
  expect(made.exitCode).toBe(0);
});
afterAll(async () => {
  await gw.close();
  await rm(outside, { recursive: true, force: true });
});

describe("listing", () => {
  test("files in lexicographic path order, each with every field; directories and links are not files", async () => {
    const files = await listing(box.id);
    expect(files.map((file) => file.path)).toEqual([...FILES].sort());
    const report = files.find((file) => file.path === "out/report.csv")!;
    const now = Math.floor(Date.now() / 1000);
    expect(report).toEqual({ id: "cfile_b3V0L3JlcG9ydC5jc3Y", object: "container.file", container_id: box.id, path: "out/report.csv", bytes: 14, created_at: report.created_at, source: "assistant" });
    expect(Math.abs(report.created_at - now)).toBeLessThan(60);
    for (const file of files) expect(file.id).toBe(idOf(file.path));
  });

  test("limit=2 pages concatenate to the full listing", async () => {
    const full = await listing(box.id, 1000);
    expect(full).toHaveLength(FILES.length);
    const pages = await allPages(box.id, 2);
    expect(pages.flatMap((page) => page.data)).toEqual(full);
    expect(pages.every((page) => page.data.length <= 2)).toBe(true);
    expect(pages.at(-1)!.has_more).toBe(false);
  });

  test("after any file id (or the id of a path that does not exist) resumes strictly after that path", async () => {
    const full = await listing(box.id);
    const after = async (id: string) => {
      const pages = [await list(box.id, `?after=${id}`)];
      while (pages.at(-1)!.has_more) pages.push(await list(box.id, `?after=${pages.at(-1)!.last_id}`));
      return pages.flatMap((page) => page.data);
    };
    for (const [index, file] of full.entries()) expect(await after(file.id)).toEqual(full.slice(index + 1));
    expect((await after(idOf("b/c.txt0"))).map((file) => file.path)).toEqual(["b/d/e.txt", "notes/2024/jan.md", "out/report.csv", "z.txt", "ü.txt"]);
    expect(await list(box.id, `?after=${idOf("ü.txt~")}`)).toEqual({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
  });

  test("every bound of limit: 1 and 1000 accepted, 0, 1001, -1, abc, 1.5 and empty refused with 400", async () => {
    const one = await list(box.id, "?limit=1");
    expect(one.data.map((file) => file.path)).toEqual(["a.txt"]);
    expect({ has_more: one.has_more, last_id: one.last_id }).toEqual({ has_more: true, last_id: idOf("a.txt") });
    for (const bad of ["0", "1001", "-1", "abc", "1.5", ""]) {
      await expectError(await get(`/containers/${box.id}/files?limit=${bad}`), 400);
    }
    await expectError(await get(`/containers/${box.id}/files?after=not-a-file-id`), 400, "after");
  });

  test("limit defaults to 100 and goes up to 1000", async () => {
    const many = await open();
    // f0000 … f1004: 1,005 files, no directories.
    await many.exec("for i in $(seq -w 0 1004); do : > f$i; done", EXEC);
    const page = await list(many.id);
    expect(page.data).toHaveLength(100);
    expect({ has_more: page.has_more, last_id: page.last_id }).toEqual({ has_more: true, last_id: idOf("f0099") });
    const most = await list(many.id, "?limit=1000");
    expect({ count: most.data.length, last: most.last_id, more: most.has_more }).toEqual({ count: 1000, last: idOf("f0999"), more: true });
    const rest = await list(many.id, `?limit=1000&after=${most.last_id}`);
    expect({ paths: rest.data.map((file) => file.path), more: rest.has_more }).toEqual({ paths: ["f1000", "f1001", "f1002", "f1003", "f1004"], more: false });
  });

  test("an empty container: no data, null ids, no more", async () => {
    const empty = await open();
    expect(await list(empty.id)).toEqual({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
  });
});

describe("the scan bound on directory markers", () => {
  test("pages stop after passing the bound, name the marker as last_id (data may be empty), and resume after it", async () => {
    const markers = await open();
    await markers.exec("mkdir d0 d1 d2 d3 d4 d5 d6 d7 d8 d9 && echo in > d4/in.txt && echo zz > zz.txt", EXEC);
    const pages = await allPages(markers.id);
    const shape = pages.map((page) => ({ data: page.data.map((file) => file.path), last: page.last_id && pathOf(page.last_id), more: page.has_more }));
    expect(shape).toEqual([
      { data: [], last: "d2/", more: true },
      { data: ["d4/in.txt"], last: "d5/", more: true },
      { data: [], last: "d8/", more: true },
      { data: ["zz.txt"], last: "zz.txt", more: false },
    ]);
    // With a page size of one, the same files in the same order.
    expect((await allPages(markers.id, 1)).flatMap((page) => page.data.map((file) => file.path))).toEqual(["d4/in.txt", "zz.txt"]);
  });

  test("a listing whose tail is only markers ends with an empty page whose last_id is null", async () => {
    const tail = await open();
    await tail.exec("echo a > a.txt && mkdir z0 z1 z2 z3 z4", EXEC);
    const pages = await allPages(tail.id);
    expect(pages.map((page) => ({ data: page.data.map((file) => file.path), last: page.last_id && pathOf(page.last_id), more: page.has_more }))).toEqual([
      { data: ["a.txt"], last: "z2/", more: true },
      { data: [], last: null, more: false },
    ]);
  });
});

describe("one file", () => {
  test("metadata matches the listing; content streams the exact bytes", async () => {
    const binary = await open();
    await binary.exec("mkdir -p out && printf '\\x00\\x01\\xff\\xfe binary' > out/data.bin && head -c 300000 /dev/urandom > big.bin", EXEC);
    const [listed] = (await list(binary.id, "?limit=1&after=" + idOf("big.bin"))).data;
    const meta = await get(`/containers/${binary.id}/files/${idOf("out/data.bin")}`);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toEqual(listed!);
    const content = await get(`/containers/${binary.id}/files/${idOf("out/data.bin")}/content`);
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect([...new Uint8Array(await content.arrayBuffer())]).toEqual([0, 1, 255, 254, ...Buffer.from(" binary")]);
    // Larger than one read chunk: every byte arrives.
    const big = await get(`/containers/${binary.id}/files/${idOf("big.bin")}/content`);
    expect((await big.arrayBuffer()).byteLength).toBe(300_000);
  });

  test("404 for a directory marker, a missing file, a malformed id, and links (one leads out of the container)", async () => {
    for (const fileId of [idOf("b/"), idOf("b"), idOf("missing.txt"), "cfile_!!", "nope", idOf("b//c.txt"), idOf("leak"), idOf("leakdir/secret.txt")]) {
      await expectError(await get(`/containers/${box.id}/files/${fileId}`), 404);
      const content = await get(`/containers/${box.id}/files/${fileId}/content`);
      expect(await content.text()).not.toContain("host secret");
      expect(content.status).toBe(404);
    }
  });
});

describe("auth and workspaces", () => {
  const routes = () => [`/containers/${box.id}/files`, `/containers/${box.id}/files/${idOf("a.txt")}`, `/containers/${box.id}/files/${idOf("a.txt")}/content`];

  test("401 without a key or with an invalid one; 403 for an inference key, before anything else", async () => {
    for (const route of [...routes(), "/containers/ctr_00/files?limit=0"]) {
      await expectError(await get(route, null), 401);
      await expectError(await get(route, "sk-invalid"), 401);
      const forbidden = await expectError(await get(route, gw.inferenceKey), 403);
      expect(forbidden.error.message).toBe("Only management keys can perform this operation");
    }
    await expectError(await gw.request(`/containers/${box.id}`, { method: "DELETE" }), 403);
  });

  test("another workspace can never list, read, delete or reuse the container", async () => {
    for (const route of routes()) await expectError(await get(route, otherAdmin), 404);
    await expectError(await gw.request(`/containers/${box.id}`, { method: "DELETE", key: otherAdmin }), 404);
    const reuse = open({ environment: { type: "container_reference", container_id: box.id } }, otherWorkspaceId);
    await expect(reuse).rejects.toThrow("not found in this workspace");
    // Still there for its owner.
    expect(await listing(box.id)).toHaveLength(FILES.length);
  });

  test("404 for an unknown id and for a malformed one", async () => {
    for (const id of ["ctr_0123456789abcdef0123456789abcdef", "sess_00-r11", "not-an-id", "..", "ctr_%2F..%2F.."]) {
      await expectError(await get(`/containers/${id}/files`), 404);
    }
  });
});

describe("lifecycle over HTTP", () => {
  test("DELETE removes the container and its files; afterwards it is 404", async () => {
    const doomed = await open();
    await doomed.writeFile("x.txt", "x");
    const dir = join(gw.gateway.deps.config.sandbox!.dir, gw.gateway.defaultWorkspaceId, doomed.id);
    expect(existsSync(dir)).toBe(true);
    const res = await gw.request(`/containers/${doomed.id}`, { method: "DELETE", key: ADMIN_KEY });
    expect(await res.json()).toEqual({ id: doomed.id, object: "container.deleted", deleted: true });
    expect(existsSync(dir)).toBe(false);
    await expectError(await get(`/containers/${doomed.id}/files`), 404);
    await expectError(await gw.request(`/containers/${doomed.id}`, { method: "DELETE", key: ADMIN_KEY }), 404);
  });

  test("an expired container is 404 even before the sweeper removes it", async () => {
    const brief = await open({ sleepAfterSeconds: 60 });
    expect((await list(brief.id)).data).toEqual([]);
    skewMs += 61_000;
    try {
      await expectError(await get(`/containers/${brief.id}/files`), 404);
    } finally {
      skewMs -= 61_000;
    }
  });
});

describe("GET /containers: the workspace's live containers", () => {
  type Listed = { id: string; object: string; status: string; created_at: number; last_active_at: number; sleep_after_seconds: number; expires_at: number };
  type ContainerPage = { object: string; data: Listed[]; first_id: string | null; last_id: string | null; has_more: boolean };
  let admin: string;
  let workspaceId: string;
  const page = async (query = "", key = admin) => {
    const res = await get(`/containers${query}`, key);
    expect(res.status).toBe(200);
    return (await res.json()) as ContainerPage;
  };

  beforeAll(async () => {
    const store = gw.gateway.deps.store;
    workspaceId = (await store.workspaces.create("lister")).id;
    admin = newSecret();
    await store.keys.create({ hash: hashSecret(admin), workspaceId, name: "lister admin", label: labelOf(admin), isManagement: true, limit: null, limitReset: null, expiresAt: null });
  });

  test("none, then each one in id order with its times; pages of one concatenate; another workspace's never appear", async () => {
    expect(await page()).toEqual({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
    const made = [await open({}, workspaceId), await open({ sleepAfterSeconds: 60 }, workspaceId), await open({ environment: { type: "container_auto" } }, workspaceId)];
    const ids = made.map((c) => c.id).sort();
    const all = await page();
    expect(all.data.map((c) => c.id)).toEqual(ids);
    expect({ first: all.first_id, last: all.last_id, more: all.has_more }).toEqual({ first: ids[0]!, last: ids[2]!, more: false });
    const now = Math.floor(Date.now() / 1000);
    for (const c of all.data) {
      expect(c.object).toBe("container");
      expect(c.status).toBe("running");
      expect(Math.abs(c.created_at - now)).toBeLessThan(60);
      expect(c.last_active_at).toBeGreaterThanOrEqual(c.created_at);
      expect(c.expires_at).toBe(c.last_active_at + c.sleep_after_seconds);
    }
    expect(all.data.find((c) => c.id === made[1]!.id)!.sleep_after_seconds).toBe(60);
    const pages: ContainerPage[] = [await page("?limit=1")];
    while (pages.at(-1)!.has_more) pages.push(await page(`?limit=1&after=${pages.at(-1)!.last_id}`));
    expect(pages.map((p) => p.data.length)).toEqual([1, 1, 1]);
    expect(pages.flatMap((p) => p.data)).toEqual(all.data);
    expect((await page(`?after=${ids[2]}`)).data).toEqual([]);
    // Isolation both ways.
    const mine = (await page("", ADMIN_KEY)).data.map((c) => c.id);
    expect(mine).toContain(box.id);
    for (const id of ids) expect(mine).not.toContain(id);
    expect(all.data.map((c) => c.id)).not.toContain(box.id);
  });

  test("an expired container is no longer listed", async () => {
    const brief = await open({ sleepAfterSeconds: 60 }, workspaceId);
    expect((await page("?limit=100")).data.map((c) => c.id)).toContain(brief.id);
    skewMs += 61_000;
    try {
      expect((await page("?limit=100")).data.map((c) => c.id)).not.toContain(brief.id);
    } finally {
      skewMs -= 61_000;
    }
  });

  test("limit 1 and 100 accepted; 0, 101, abc and a malformed after refused with 400; 401 and 403 first", async () => {
    await page("?limit=1");
    await page("?limit=100");
    for (const query of ["?limit=0", "?limit=101", "?limit=abc", "?after=not-an-id", "?after=ctr_..%2F.."]) await expectError(await get(`/containers${query}`, admin), 400);
    await expectError(await get("/containers", null), 401);
    await expectError(await get("/containers?limit=0", "sk-invalid"), 401);
    await expectError(await get("/containers", gw.inferenceKey), 403);
  });
});

describe("GET /containers/{id}: one live container, with the listing's rules", () => {
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: gw.baseUrl, maxRetries: 0 });
  /** The client's error for a retrieve that fails (its promise type is not one `expect().rejects` can read). */
  const failure = (key: string, id: string) => openai(key).containers.retrieve(id).then(() => undefined, (error: unknown) => error);

  test("the openai client's containers.retrieve gets the listing's entry, in the shape its Container type has", async () => {
    const brief = await open({ sleepAfterSeconds: 120 });
    const listed = (await (await get("/containers?limit=100")).json()) as { data: Array<Record<string, unknown>> };
    const entry = listed.data.find((c) => c.id === brief.id)!;
    const retrieved = await openai(ADMIN_KEY).containers.retrieve(brief.id);
    expect(retrieved as unknown).toEqual(entry);
    expect(retrieved).toMatchObject({ id: brief.id, object: "container", name: brief.id, status: "running", expires_after: { anchor: "last_active_at", minutes: 2 } });
    expect(typeof retrieved.created_at).toBe("number");
    expect(retrieved.last_active_at).toBeGreaterThanOrEqual(retrieved.created_at);
  });

  test("another workspace's, an unknown, a malformed and an expired container are 404; an inference key 403; no key 401", async () => {
    expect(await failure(otherAdmin, box.id)).toBeInstanceOf(OpenAI.NotFoundError);
    for (const id of ["ctr_0123456789abcdef0123456789abcdef", "not-an-id", ".."]) await expectError(await get(`/containers/${id}`), 404);
    expect(await failure(gw.inferenceKey, box.id)).toBeInstanceOf(OpenAI.PermissionDeniedError);
    await expectError(await get(`/containers/${box.id}`, null), 401);
    const brief = await open({ sleepAfterSeconds: 60 });
    expect((await openai(ADMIN_KEY).containers.retrieve(brief.id)).id).toBe(brief.id);
    skewMs += 61_000;
    try {
      expect(await failure(ADMIN_KEY, brief.id)).toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      skewMs -= 61_000;
    }
  });
});

test("the official SDK lists, reads and downloads container files", async () => {
  const admin = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: gw.baseUrl });
  const first = await admin.containers.listContainerFiles({ containerId: box.id, limit: 2 });
  expect(first.data.map((file) => file.path)).toEqual(["a.txt", "b-x.txt"]);
  expect(first.hasMore).toBe(true);
  const next = await admin.containers.listContainerFiles({ containerId: box.id, limit: 2, after: first.lastId! });
  expect(next.data.map((file) => file.path)).toEqual(["b/c.txt", "b/d/e.txt"]);
  const file = await admin.containers.getContainerFile({ containerId: box.id, fileId: idOf("ü.txt") });
  expect({ path: file.path, bytes: file.bytes, containerId: file.containerId }).toEqual({ path: "ü.txt", bytes: 6, containerId: box.id });
  const stream = await admin.containers.downloadContainerFileContent({ containerId: box.id, fileId: idOf("ü.txt") });
  expect(await new Response(stream).text()).toBe("ü.txt");
});

test("the OpenAPI docs describe the container routes", async () => {
  const spec = (await (await fetch(`${gw.origin}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  expect(Object.keys(spec.paths["/api/v1/containers/{container_id}/files"] ?? {})).toContain("get");
  expect(Object.keys(spec.paths["/api/v1/containers/{container_id}/files/{file_id}"] ?? {})).toContain("get");
  expect(Object.keys(spec.paths["/api/v1/containers/{container_id}/files/{file_id}/content"] ?? {})).toContain("get");
  expect(Object.keys(spec.paths["/api/v1/containers/{container_id}"] ?? {})).toEqual(expect.arrayContaining(["get", "delete"]));
  expect(Object.keys(spec.paths["/api/v1/containers"] ?? {})).toContain("get");
});

describe("the store's outage", () => {
  let down: TestGateway;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "containers-down-"));
    down = await startTestGateway({ file: { sandbox: { dir } }, overrides: { sandboxBackend: hostBashSandbox() } });
  });
  afterAll(async () => {
    await down.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("503 from every route while the container directory is gone (not 404: we cannot tell)", async () => {
    const handle = await down.gateway.deps.containers!.forRequest({ workspaceId: down.gateway.defaultWorkspaceId }).open({});
    await handle.writeFile("f.txt", "f");
    await rm(dir, { recursive: true, force: true });
    for (const route of [`/containers/${handle.id}/files`, `/containers/${handle.id}/files/${idOf("f.txt")}`, `/containers/${handle.id}/files/${idOf("f.txt")}/content`]) {
      await expectError(await down.request(route, { key: ADMIN_KEY }), 503);
    }
    await expectError(await down.request(`/containers/${handle.id}`, { method: "DELETE", key: ADMIN_KEY }), 503);
    await expectError(await down.request("/containers", { key: ADMIN_KEY }), 503);
    await expectError(await down.request(`/containers/${handle.id}`, { key: ADMIN_KEY }), 503);
  });
});
