/**
 * The catalog operations of the peer's API besides `GET /models` (which ./catalog.ts serves, paged here): the model
 * count, one model, one model's endpoints, and the configured providers. Public like `/models`: they show the same
 * catalog, never a provider's URL or credentials.
 */
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { errors } from "../errors.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import { publicEndpoint } from "./endpoint-view.ts";
import { architectureOf } from "./model-architecture.ts";

/** A model as `GET /models` lists it (built once by ./catalog.ts). */
export type ListedModel = { id: string; architecture: { output_modalities: string[] }; supported_parameters: string[] } & Record<string, unknown>;

const ModalityQuery = t.Optional(t.String({ description: "Comma-separated output modalities (`text`, `image`); `all` or absent: every model" }));

/**
 * `GET /models` query: the peer SDK always sends `offset` and `limit` (0 and 500 unless told otherwise). Its other
 * filters (`category`, `sort`, `q`, prices, benchmark indexes, …) rank or narrow a marketplace; they are accepted and
 * have no effect here (README "Models").
 */
export const ModelListQuery = t.Object(
  {
    offset: IntegerQuery("Models to skip (0 or more)"),
    limit: IntegerQuery("Models to return (1 or more; default: all)"),
    output_modalities: ModalityQuery,
    supported_parameters: t.Optional(t.String({ description: "Comma-separated parameters every listed model must support" })),
    after_id: t.Optional(t.String({ description: "Anthropic-style cursor: the models after this id (instead of `offset`)" })),
    before_id: t.Optional(t.String({ description: "Anthropic-style cursor: the `limit` models before this id" })),
  },
  { additionalProperties: true },
);

/** Bounds `offset` and `limit`: far past any catalog, so only nonsense is refused. */
const MAX_PAGE = 1_000_000;

/** Models producing at least one of the listed modalities. */
function byOutput(models: readonly ListedModel[], filter: string | undefined): readonly ListedModel[] {
  if (filter === undefined || filter === "" || filter === "all") return models;
  const wanted = new Set(filter.split(",").map((m) => m.trim()));
  return models.filter((m) => m.architecture.output_modalities.some((o) => wanted.has(o)));
}

/** Models supporting every listed parameter. */
function byParameters(models: readonly ListedModel[], filter: string | undefined): readonly ListedModel[] {
  const wanted = (filter ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  return wanted.length === 0 ? models : models.filter((m) => wanted.every((p) => m.supported_parameters.includes(p)));
}

/** Where a page starts: `offset`, or an Anthropic cursor (`after_id`, `before_id`: the `limit` models before it). */
function pageStart(matching: readonly ListedModel[], query: { offset?: string; after_id?: string; before_id?: string }, limit: number): number {
  const cursor = query.after_id ?? query.before_id;
  if (cursor === undefined) return integerParam("offset", query.offset, { min: 0, max: MAX_PAGE, fallback: 0 });
  const at = matching.findIndex((m) => m.id === cursor);
  if (at === -1) throw errors.invalid(`${query.after_id !== undefined ? "after_id" : "before_id"}: no listed model has the id ${cursor}`);
  return query.after_id !== undefined ? at + 1 : Math.max(0, at - limit);
}

/**
 * One page of the listing, with the peer's `total_count` and `links.next` (a path, as the peer writes it), and the
 * list fields of the OpenAI (`object`) and Anthropic (`has_more`, `first_id`, `last_id`) clients.
 */
export function modelPage(
  models: readonly ListedModel[],
  query: { offset?: string; limit?: string; output_modalities?: string; supported_parameters?: string; after_id?: string; before_id?: string },
  path: string,
): Record<string, unknown> {
  const matching = byParameters(byOutput(models, query.output_modalities), query.supported_parameters);
  const limit = integerParam("limit", query.limit, { min: 1, max: MAX_PAGE, fallback: MAX_PAGE });
  const offset = pageStart(matching, query, limit);
  const end = query.before_id !== undefined ? Math.min(offset + limit, matching.findIndex((m) => m.id === query.before_id)) : offset + limit;
  const data = matching.slice(offset, end);
  const rest = offset + data.length < matching.length;
  const next = new URLSearchParams({ offset: String(offset + data.length), limit: String(limit) });
  if (query.output_modalities !== undefined) next.set("output_modalities", query.output_modalities);
  if (query.supported_parameters !== undefined) next.set("supported_parameters", query.supported_parameters);
  // Anthropic's client pages backwards while `before_id` is given, forwards otherwise.
  const hasMore = query.before_id !== undefined ? offset > 0 : rest;
  return {
    object: "list",
    data,
    total_count: matching.length,
    links: { next: rest ? `${path}?${next}` : null },
    has_more: hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

export function catalogPeerRoutes(deps: Deps, listed: () => readonly ListedModel[]) {
  // Rebuilt when the listing is (a new array after the catalog changed).
  let index: { of: readonly ListedModel[]; byId: Map<string, ListedModel> } | undefined;
  const byIdOf = (): Map<string, ListedModel> => {
    const models = listed();
    if (index?.of !== models) index = { of: models, byId: new Map(models.map((m) => [m.id, m])) };
    return index.byId;
  };
  const catalogModel = (author: string, slug: string) => {
    const model = deps.catalog.get(`${author}/${slug}`);
    if (!model) throw errors.notFound(`Model ${author}/${slug} not found`);
    return model;
  };
  const listedModel = (id: string) => {
    const model = byIdOf().get(id);
    if (!model) throw errors.notFound(`Model ${id} not found`);
    return model;
  };
  return new Elysia({ name: "routes:catalog-peer" })
    .get("/models/count", ({ query }) => ({ data: { count: byOutput(listed(), query.output_modalities).length } }), {
      query: t.Object({ output_modalities: ModalityQuery }, { additionalProperties: true }),
      detail: { summary: "How many models the catalog has", tags: ["models"] },
    })
    .get("/model/:author/:slug", ({ params }) => ({ data: byIdOf().get(catalogModel(params.author, params.slug).id)! }), {
      detail: { summary: "One model, as GET /models lists it", tags: ["models"] },
    })
    // `models.retrieve` of the OpenAI and Anthropic clients: the bare model object. They send an id's slash encoded
    // (`/models/acme%2Fmodel-a`: one segment), a hand-written URL has it plain (two). The router takes one parameter
    // name per position, so the one-segment form's `author` is the whole id.
    .get("/models/:author", ({ params }) => listedModel(params.author), {
      params: t.Object({ author: t.String({ description: "The whole model id, its slash percent-encoded (`acme%2Fmodel-a`)" }) }),
      detail: { summary: "One model, as GET /models lists it (id with its slash percent-encoded)", tags: ["models"] },
    })
    .get("/models/:author/:slug", ({ params }) => listedModel(`${params.author}/${params.slug}`), {
      detail: { summary: "One model, as GET /models lists it", tags: ["models"] },
    })
    .get(
      "/models/:author/:slug/endpoints",
      ({ params }) => {
        const model = catalogModel(params.author, params.slug);
        const entry = byIdOf().get(model.id)!;
        return {
          data: {
            id: model.id,
            name: entry.name,
            description: entry.description,
            created: entry.created,
            architecture: architectureOf(model.endpoints),
            // Measured values change between calls, so this is built per request.
            endpoints: model.endpoints.map((e) => publicEndpoint(e, deps.routing)),
          },
        };
      },
      { detail: { summary: "The endpoints (providers) serving one model, with what they honour and measured latency", tags: ["models"] } },
    )
    .get("/providers", () => ({ data: deps.config.providers.map((p) => providerView(p, deps.catalog.discoveredOf(p.id).length)) }), {
      detail: { summary: "The configured providers", tags: ["providers"] },
    });
}

/** A configured provider: its id is its name and slug; the gateway keeps no policy URLs or locations for it. */
function providerView(provider: Deps["config"]["providers"][number], discovered: number): Record<string, unknown> {
  return {
    name: provider.id,
    slug: provider.id,
    privacy_policy_url: null,
    terms_of_service_url: null,
    status_page_url: null,
    headquarters: null,
    datacenters: null,
    adapter: provider.adapter,
    // A cloud provider's region (config `region`); null for the others.
    region: provider.region ?? null,
    simulated: provider.simulated,
    // Configured models and those its server said it serves.
    models: provider.models.length + discovered,
  };
}
