/**
 * Which configured models make images (config `output_modalities` lists `image`), and the endpoints an image
 * request goes to: the named model's, or the first image model's in catalog order when none is named.
 */
import type { ModelConfig } from "../config/types.ts";
import type { Catalog, Endpoint } from "../routing/catalog.ts";

/** True when the model's config says it outputs images. */
export function makesImages(model: Pick<ModelConfig, "outputModalities">): boolean {
  return model.outputModalities?.includes("image") === true;
}

/** The id of the first model (catalog order) with an endpoint that makes images; undefined when there is none. */
export function defaultImageModel(catalog: Catalog): string | undefined {
  return catalog.list().find((model) => model.endpoints.some((endpoint) => makesImages(endpoint.model)))?.id;
}

/** The endpoints of `modelId` (default: the first image model) that make images, in catalog order. */
export function imageEndpoints(catalog: Catalog, modelId?: string): Endpoint[] {
  const id = modelId ?? defaultImageModel(catalog);
  if (id === undefined) return [];
  return (catalog.get(id)?.endpoints ?? []).filter((endpoint) => makesImages(endpoint.model));
}
