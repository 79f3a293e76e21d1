/** `GET /models` (and the peer's other catalog reads, ./catalog-peer.ts) and `GET /health`: public, no key needed. */
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { catalogPeerRoutes, type ListedModel, ModelListQuery, modelPage } from "./catalog-peer.ts";
import { peerModelFields } from "./model-view.ts";
import { modelClientFields } from "./model-client-fields.ts";
import { pricingView } from "./pricing-view.ts";

export function catalogRoutes(deps: Deps) {
  // Built once per catalog version: the catalog changes only when a server's discovered models do.
  let built: { version: number; data: ListedModel[] } | undefined;
  const listed = (): readonly ListedModel[] => {
    if (built?.version !== deps.catalog.version) built = { version: deps.catalog.version, data: listModels(deps) };
    return built.data;
  };
  return new Elysia({ name: "routes:catalog" })
    .get("/models", ({ query, path }) => modelPage(listed(), query, path), {
      query: ModelListQuery,
      detail: { summary: "Every configured model with its endpoints and pricing (paged with offset and limit)", tags: ["models"] },
    })
    // The peer's `embeddings.listModels`: the same listing, only the models `POST /embeddings` serves.
    .get("/embeddings/models", ({ query, path }) => modelPage(embeddingModels(listed()), query, path), {
      query: ModelListQuery,
      detail: { summary: "The embedding models (output_modalities embeddings), as GET /models lists them", tags: ["models", "embeddings"] },
    })
    .use(catalogPeerRoutes(deps, listed))
    .get("/health", () => ({ status: "ok" }), { detail: { summary: "Liveness", tags: ["operations"] } });
}

/** The listed models whose architecture outputs embeddings (kept per listing: it is rebuilt only with the catalog). */
const embeddingLists = new WeakMap<readonly ListedModel[], readonly ListedModel[]>();
function embeddingModels(models: readonly ListedModel[]): readonly ListedModel[] {
  let found = embeddingLists.get(models);
  if (!found) embeddingLists.set(models, (found = models.filter((m) => m.architecture.output_modalities.includes("embeddings"))));
  return found;
}

/** Every model of the catalog as `GET /models` lists it. */
function listModels(deps: Deps): ListedModel[] {
  return deps.catalog.list().map((model) => {
      const first = model.endpoints[0]!;
      const simulated = model.endpoints.every((e) => e.provider.simulated);
      const listed = {
        id: model.id,
        name: first.model.name ?? model.id,
        description: first.model.description ?? (simulated ? "Provider simulator (deterministic, not a real model)" : ""),
        context_length: first.model.contextLength ?? null,
        // What the model produces, as the config declares it (null: not declared, the upstream decides).
        output_modalities: first.model.outputModalities ?? null,
        pricing: pricingView(first.model.pricing),
        simulated,
        endpoints: model.endpoints.map((e) => ({
          provider: e.provider.id,
          adapter: e.provider.adapter,
          region: e.provider.region ?? null,
          upstream_model: e.model.upstreamModel,
          context_length: e.model.contextLength ?? null,
          max_output_tokens: e.model.maxOutputTokens ?? null,
          output_modalities: e.model.outputModalities ?? null,
          pricing: pricingView(e.model.pricing),
          quantization: e.model.quantization ?? null,
          tiers: e.model.tiers ?? null,
          simulated: e.provider.simulated,
        })),
        // The fields the peer's `Model` requires (its SDK rejects a listing without them).
        ...peerModelFields(model),
      };
      // And those the OpenAI and Anthropic clients read.
      return { ...listed, ...modelClientFields(model.id, listed.name, listed.created, first.provider.id) };
  });
}
