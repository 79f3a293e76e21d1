/**
 * The fields the peer's `Model` requires that our catalog listing (./catalog.ts) did not have: what a client of the
 * peer SDK reads to choose a model. `top_provider` is the endpoint default routing favours (the cheapest: load
 * balancing weighs by 1/price², core/routing/endpoint-order.ts). README "Models" lists the constant fields.
 */
import { API_PREFIX } from "../http/api-prefix.ts";
import type { CatalogModel, Endpoint } from "../routing/catalog.ts";
import { modelParameters } from "../routing/endpoint-parameters.ts";
import { profileOf } from "../routing/profile.ts";
import { architectureOf, type Architecture } from "./model-architecture.ts";

export interface PeerModelFields {
  canonical_slug: string;
  created: number;
  /** Without `tokenizer`: the peer's `Model` takes a known tokenizer name or nothing (not null). */
  architecture: Omit<Architecture, "tokenizer">;
  top_provider: { context_length: number | null; max_completion_tokens: number | null; is_moderated: boolean };
  per_request_limits: null;
  supported_parameters: string[];
  default_parameters: null;
  supported_voices: null;
  links: { details: string };
}

/** The endpoint with the lowest price per token; the first configured one among equals. */
export function topEndpoint(endpoints: readonly Endpoint[]): Endpoint {
  return endpoints.reduce((best, e) => (profileOf(e).unitPrice < profileOf(best).unitPrice ? e : best));
}

/** The path of a model's endpoint listing (the peer's `links.details`). */
export function endpointsPath(modelId: string): string {
  return `${API_PREFIX}/models/${modelId}/endpoints`;
}

export function peerModelFields(model: CatalogModel): PeerModelFields {
  const top = topEndpoint(model.endpoints);
  const { tokenizer: _none, ...architecture } = architectureOf(model.endpoints);
  return {
    canonical_slug: model.id,
    // When the model was made is not in the config; 0 is the neutral value of a required timestamp.
    created: 0,
    architecture,
    top_provider: { context_length: top.model.contextLength ?? null, max_completion_tokens: top.model.maxOutputTokens ?? null, is_moderated: false },
    per_request_limits: null,
    supported_parameters: modelParameters(model.endpoints),
    default_parameters: null,
    supported_voices: null,
    links: { details: endpointsPath(model.id) },
  };
}
