/**
 * The container files API (spec "Container file", operation 6): list a container's files, read one
 * file's metadata or content, delete a container; and the workspace's live containers (`GET /containers` and
 * `GET /containers/{id}`, ours: the spec names a container only through a tool result). Management keys only;
 * another workspace's container, an unknown one and an expired one are all 404; 503 while the container directory
 * cannot be used.
 */
import { Elysia, t, type TSchema } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import { ContainerBrowser } from "../containers/browse.ts";
import type { ContainerFileInfo } from "../containers/contract.ts";
import { fileIdOf, pathOfFileId } from "../containers/file-ids.ts";
import { isContainerId } from "../containers/ids.ts";
import { expiresAtMs, type ContainerMeta } from "../containers/meta.ts";
import { fileStream } from "../containers/file-stream.ts";
import { DirectoryContainerService } from "../containers/service.ts";
import { SandboxStoreUnavailable } from "../containers/store-unavailable.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors, GatewayError } from "../errors.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";

const MAX_PAGE = 1000;
const DEFAULT_PAGE = 100;

const ContainerParams = t.Object({
  container_id: t.String({ description: "The canonical container id, exactly as a bash/shell tool result shows it (ctr_…, sess_…, …-r…)" }),
});
const FileParams = t.Object({
  container_id: ContainerParams.properties.container_id,
  file_id: t.String({ description: "A container file id: cfile_ + base64url of the file's path" }),
});
const ListQuery = t.Object({
  limit: IntegerQuery(`Page size, 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE})`),
  after: t.Optional(t.String({ description: "Resume strictly after this path: the previous page's last_id, or any container file id" })),
});

const ContainerFile = t.Object({
  id: t.String(),
  object: t.Literal("container.file"),
  container_id: t.String(),
  path: t.String({ description: "Relative to the container root" }),
  bytes: t.Integer(),
  created_at: t.Integer({ description: "Unix seconds" }),
  source: t.Literal("assistant"),
});
/** A cursor-paged list (`after` = the previous page's `last_id`). */
const listOf = <T extends TSchema>(item: T, lastId: string, hasMore: string) =>
  t.Object({
    object: t.Literal("list"),
    data: t.Array(item),
    first_id: t.Union([t.String(), t.Null()]),
    last_id: t.Union([t.String(), t.Null()], { description: lastId }),
    has_more: t.Boolean({ description: hasMore }),
  });
const ContainerFileList = listOf(
  ContainerFile,
  "Cursor for `after`: the last file's id, or the scan position when the page stopped at the scan bound on directory markers; null only when has_more is false and data is empty",
  "True: the next page can be fetched with after=last_id",
);
const MAX_CONTAINERS_PAGE = 100;
const DEFAULT_CONTAINERS_PAGE = 20;
const ContainerListQuery = t.Object({
  limit: IntegerQuery(`Page size, 1 to ${MAX_CONTAINERS_PAGE} (default ${DEFAULT_CONTAINERS_PAGE})`),
  after: t.Optional(t.String({ description: "Resume strictly after this container id: the previous page's last_id" })),
});
const Container = t.Object({
  id: t.String(),
  object: t.Literal("container"),
  name: t.String({ description: "The id again: containers have no name of their own (OpenAI's Container requires one)" }),
  status: t.Literal("running", { description: "Live containers only: an expired one is gone" }),
  created_at: t.Integer({ description: "Unix seconds" }),
  last_active_at: t.Integer({ description: "Unix seconds of the last command or tool call" }),
  sleep_after_seconds: t.Integer({ description: "The idle time after which it expires" }),
  expires_at: t.Integer({ description: "Unix seconds at which it expires unless used again" }),
  expires_after: t.Object(
    { anchor: t.Literal("last_active_at"), minutes: t.Number({ description: "sleep_after_seconds in minutes" }) },
    { description: "OpenAI's spelling of the idle timer" },
  ),
});
const ContainerList = listOf(Container, "Cursor for `after`", "True: more ids follow (a later page may be empty if they expired meanwhile)");
/** Ours plus the fields the `openai` client's Container type reads (`name`, `expires_after`). */
const containerView = (meta: ContainerMeta) => ({
  id: meta.id,
  object: "container" as const,
  name: meta.id,
  status: "running" as const,
  created_at: Math.floor(meta.createdAt / 1000),
  last_active_at: Math.floor(meta.lastUsedAt / 1000),
  sleep_after_seconds: meta.sleepAfterSeconds,
  expires_at: Math.floor(expiresAtMs(meta) / 1000),
  expires_after: { anchor: "last_active_at" as const, minutes: meta.sleepAfterSeconds / 60 },
});

const ContainerDeleted = t.Object({ id: t.String(), object: t.Literal("container.deleted"), deleted: t.Literal(true) });

const fileView = (containerId: string, file: ContainerFileInfo) => ({
  id: fileIdOf(file.path),
  object: "container.file" as const,
  container_id: containerId,
  path: file.path,
  bytes: file.bytes,
  created_at: file.createdAt,
  source: "assistant" as const,
});

const containerNotFound = () => errors.notFound("Container not found");
const fileNotFound = () => errors.notFound("Container file not found");

/** The store's outage as the spec's 503; everything else as it is. */
async function available<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof SandboxStoreUnavailable)) throw error;
    throw new GatewayError("provider_unavailable", "Service temporarily unavailable: the container store cannot be reached", {
      status: 503,
      retryable: true,
      retryAfter: 1,
      cause: error,
    });
  }
}

/** `GET/DELETE /containers/…`, authenticated before anything is validated (401/403 precede 400 and 404). */
export function containerRoutes(deps: Deps, auth: Authenticator) {
  const browser = (): ContainerBrowser => {
    if (deps.containers instanceof DirectoryContainerService) return deps.containers.browser;
    throw new GatewayError("provider_unavailable", "Service temporarily unavailable: containers are not enabled on this gateway", { status: 503 });
  };

  /** The caller's workspace's live container; 404 otherwise (told apart from a missing file in the messages). */
  const own = async (workspaceId: string, id: string): Promise<ContainerMeta> => {
    const meta = await available(() => browser().find(workspaceId, id));
    if (!meta) throw containerNotFound();
    return meta;
  };

  return new Elysia({ name: "routes:containers" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .get(
      "/containers",
      async ({ query, principal }) => {
        const limit = integerParam("limit", query.limit, { min: 1, max: MAX_CONTAINERS_PAGE, fallback: DEFAULT_CONTAINERS_PAGE });
        if (query.after !== undefined && !isContainerId(query.after)) throw errors.invalid("after: not a container id", { param: "after" });
        const page = await available(() => browser().list(principal.workspaceId, { ...(query.after === undefined ? {} : { after: query.after }), limit }));
        const data = page.containers.map(containerView);
        return { object: "list" as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
      },
      {
        query: ContainerListQuery,
        response: { 200: ContainerList },
        detail: { summary: "List the workspace's live containers (id order, cursor pagination)", tags: ["containers"] },
      },
    )
    .get("/containers/:container_id", async ({ params, principal }) => containerView(await own(principal.workspaceId, params.container_id)), {
      params: ContainerParams,
      response: { 200: Container },
      detail: { summary: "Get one of the workspace's live containers (the listing's entry; the `openai` client's containers.retrieve)", tags: ["containers"] },
    })
    .get(
      "/containers/:container_id/files",
      async ({ params, query, principal }) => {
        const limit = integerParam("limit", query.limit, { min: 1, max: MAX_PAGE, fallback: DEFAULT_PAGE });
        const after = query.after === undefined ? undefined : pathOfFileId(query.after);
        if (query.after !== undefined && after === undefined) throw errors.invalid("after: not a container file id", { param: "after" });
        const page = await available(() => browser().page(principal.workspaceId, params.container_id, { ...(after === undefined ? {} : { after }), limit }));
        if (!page) throw containerNotFound();
        const data = page.files.map((file) => fileView(params.container_id, file));
        return {
          object: "list" as const,
          data,
          first_id: data[0]?.id ?? null,
          last_id: page.lastPath === null ? null : fileIdOf(page.lastPath),
          has_more: page.hasMore,
        };
      },
      {
        params: ContainerParams,
        query: ListQuery,
        response: { 200: ContainerFileList },
        detail: { summary: "List a container's files (lexicographic path order, cursor pagination)", tags: ["containers"] },
      },
    )
    .get(
      "/containers/:container_id/files/:file_id",
      async ({ params, principal }) => {
        await own(principal.workspaceId, params.container_id);
        const path = pathOfFileId(params.file_id);
        const file = path === undefined ? undefined : await available(() => browser().file(principal.workspaceId, params.container_id, path));
        if (!file) throw fileNotFound();
        return fileView(params.container_id, file);
      },
      { params: FileParams, response: { 200: ContainerFile }, detail: { summary: "Get a container file's metadata", tags: ["containers"] } },
    )
    .get(
      "/containers/:container_id/files/:file_id/content",
      async ({ params, principal }) => {
        await own(principal.workspaceId, params.container_id);
        const path = pathOfFileId(params.file_id);
        const opened = path === undefined ? undefined : await available(() => browser().open(principal.workspaceId, params.container_id, path));
        if (!opened) throw fileNotFound();
        // No content-length: Bun sends a stream that outlives its first read chunked and drops the header anyway.
        return new Response(fileStream(opened.handle), { headers: { "content-type": "application/octet-stream" } });
      },
      {
        params: FileParams,
        detail: {
          summary: "Download a container file's content (raw bytes, streamed)",
          tags: ["containers"],
          responses: { 200: { description: "The file's bytes", content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } } },
        },
      },
    )
    .delete(
      "/containers/:container_id",
      async ({ params, principal }) => {
        if (!(await available(() => browser().delete(principal.workspaceId, params.container_id)))) throw containerNotFound();
        return { id: params.container_id, object: "container.deleted" as const, deleted: true as const };
      },
      { params: ContainerParams, response: { 200: ContainerDeleted }, detail: { summary: "Delete a container and its files", tags: ["containers"] } },
    );
}
