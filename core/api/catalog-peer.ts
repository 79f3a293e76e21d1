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

/** One page of the listing, with the peer's `total_count` and `links.next` (a path, as the peer writes it). */
export function modelPage(
  models: readonly ListedModel[],
  query: { offset?: string; limit?: string; output_modalities?: string; supported_parameters?: string },
  path: string,
): Record<string, unknown> {
  const matching = byParameters(byOutput(models, query.output_modalities), query.supported_parameters);
  const offset = integerParam("offset", query.offset, { min: 0, max: MAX_PAGE, fallback: 0 });
  const limit = integerParam("limit", query.limit, { min: 1, max: MAX_PAGE, fallback: MAX_PAGE });
  const data = matching.slice(offset, offset + limit);
  const rest = offset + data.length < matching.length;
  const next = new URLSearchParams({ offset: String(offset + data.length), limit: String(limit) });
  if (query.output_modalities !== undefined) next.set("output_modalities", query.output_modalities);
  if (query.supported_parameters !== undefined) next.set("supported_parameters", query.supported_parameters);
  return { data, total_count: matching.length, links: { next: rest ? `${path}?${next}` : null } };
}

export function catalogPeerRoutes(deps: Deps, models: readonly ListedModel[]) {
  const byId = new Map(models.map((m) => [m.id, m]));
  const catalogModel = (author: string, slug: string) => {
    const model = deps.catalog.get(`${author}/${slug}`);
    if (!model) throw errors.notFound(`Model ${author}/${slug} not found`);
    return model;
  };
  return new Elysia({ name: "routes:catalog-peer" })
    .get("/models/count", ({ query }) => ({ data: { count: byOutput(models, query.output_modalities).length } }), {
      query: t.Object({ output_modalities: ModalityQuery }, { additionalProperties: true }),
      detail: { summary: "How many models the catalog has", tags: ["models"] },
    })
    .get("/model/:author/:slug", ({ params }) => ({ data: byId.get(catalogModel(params.author, params.slug).id)! }), {
      detail: { summary: "One model, as GET /models lists it", tags: ["models"] },
    })
    .get(
      "/models/:author/:slug/endpoints",
      ({ params }) => {
        const model = catalogModel(params.author, params.slug);
        const listed = byId.get(model.id)!;
        return {
          data: {
            id: model.id,
            name: listed.name,
            description: listed.description,
            created: listed.created,
            architecture: architectureOf(model.endpoints),
            // Measured values change between calls, so this is built per request.
            endpoints: model.endpoints.map((e) => publicEndpoint(e, deps.routing)),
          },
        };
      },
      { detail: { summary: "The endpoints (providers) serving one model, with what they honour and measured latency", tags: ["models"] } },
    )
    .get("/providers", () => ({ data: deps.config.providers.map(providerView) }), {
      detail: { summary: "The configured providers", tags: ["providers"] },
    });
}

/** A configured provider: its id is its name and slug; the gateway keeps no policy URLs or locations for it. */
function providerView(provider: Deps["config"]["providers"][number]): Record<string, unknown> {
  return {
    name: provider.id,
    slug: provider.id,
    privacy_policy_url: null,
    terms_of_service_url: null,
    status_page_url: null,
    headquarters: null,
    datacenters: null,
    adapter: provider.adapter,
    simulated: provider.simulated,
    models: provider.models.length,
  };
}
