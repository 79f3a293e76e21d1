/**
 * Presets (spec "Preset", endpoints 3–4): create from an inference body, read, list, delete.
 * Management keys only; a preset of another workspace is indistinguishable from a missing one (404).
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { managementOnly } from "./management-only.ts";
import { errors } from "../errors.ts";
import { chatFormat } from "../formats/chat/index.ts";
import type { ChatWireFormat } from "../formats/format.ts";
import { messagesFormat } from "../formats/messages/index.ts";
import { responsesFormat } from "../formats/responses/index.ts";
import { bodyChecker, jsonRequestBody } from "../http/body-check.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import { createPresetVersion } from "../presets/create.ts";
import { checkSlug } from "../presets/slug.ts";
import { presetView, versionView } from "../presets/view.ts";

/** Page size limit of the listings. */
const MAX_PAGE = 100;

const Page = t.Object({
  offset: IntegerQuery("Entries to skip (0 or more)"),
  limit: IntegerQuery(`Page size, 1 to ${MAX_PAGE} (default ${MAX_PAGE})`),
});

/** The creation endpoints: one per wire format whose body a preset can be made from. */
const CREATE_FROM: ReadonlyArray<{ path: string; format: ChatWireFormat; summary: string }> = [
  { path: "/presets/:slug/chat/completions", format: chatFormat, summary: "Create a preset (or a new version) from a chat-completions body" },
  { path: "/presets/:slug/messages", format: messagesFormat, summary: "Create a preset (or a new version) from a Messages body" },
  { path: "/presets/:slug/responses", format: responsesFormat, summary: "Create a preset (or a new version) from a Responses body" },
];

/** `GET/POST/DELETE /presets…`, authenticated before the body is validated (401/403 precede 400). */
export function presetRoutes(deps: Deps, auth: Authenticator) {
  const own = async (principal: Principal, slug: string) => {
    const preset = await deps.store.presets.get(principal.workspaceId, checkSlug(slug));
    if (!preset) throw errors.notFound(`Preset not found: ${slug}`);
    return preset;
  };
  const page = (query: { offset?: string; limit?: string }) => ({
    offset: integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    limit: integerParam("limit", query.limit, { min: 1, max: MAX_PAGE, fallback: MAX_PAGE }),
  });

  const routes = new Elysia({ name: "routes:presets" }).use(managementOnly(auth, deps.store.workspaces)).guard({ management: true });

  for (const { path, format, summary } of CREATE_FROM) {
    // The body is validated by us, not by Elysia (core/http/body-check.ts says why).
    const checkBody = bodyChecker(format.schema);
    routes.post(
      path,
      async ({ params, body, principal }) => ({ data: presetView(await createPresetVersion(deps, principal, format.id, params.slug, checkBody(body))) }),
      { params: t.Object({ slug: t.String() }), parse: "json", detail: { summary, tags: ["presets"], requestBody: jsonRequestBody(format.schema) } },
    );
  }

  return routes
    .get(
      "/presets",
      async ({ query, principal }) => {
        const { presets, total } = await deps.store.presets.list(principal.workspaceId, page(query));
        return { data: presets.map(presetView), total_count: total };
      },
      { query: Page, detail: { summary: "List presets (newest update first)", tags: ["presets"] } },
    )
    .get("/presets/:slug", async ({ params, principal }) => ({ data: presetView(await own(principal, params.slug)) }), {
      detail: { summary: "Get a preset with its designated version", tags: ["presets"] },
    })
    .get(
      "/presets/:slug/versions",
      async ({ params, query, principal }) => {
        const preset = await own(principal, params.slug);
        const { versions, total } = await deps.store.presets.listVersions(preset.id, page(query));
        return { data: versions.map(versionView), total_count: total };
      },
      { query: Page, detail: { summary: "List a preset's versions (oldest first)", tags: ["presets"] } },
    )
    .get(
      "/presets/:slug/versions/:version",
      async ({ params, principal }) => {
        const preset = await own(principal, params.slug);
        if (!/^[1-9][0-9]{0,8}$/.test(params.version)) throw errors.invalid("version: must be a positive integer", { param: "version" });
        const version = await deps.store.presets.getVersion(preset.id, Number(params.version));
        if (!version) throw errors.notFound(`Preset ${params.slug} has no version ${params.version}`);
        return { data: versionView(version) };
      },
      { detail: { summary: "Get one version of a preset", tags: ["presets"] } },
    )
    .delete(
      "/presets/:slug",
      async ({ params, principal }) => {
        if (!(await deps.store.presets.delete(principal.workspaceId, checkSlug(params.slug)))) throw errors.notFound(`Preset not found: ${params.slug}`);
        return { deleted: true };
      },
      { detail: { summary: "Delete a preset and all its versions", tags: ["presets"] } },
    );
}
