/**
 * How much credit a request reserves before its upstream call: its worst case over every endpoint of the requested
 * and fallback models — prompt-size bound × the highest prompt price, plus the most output it may produce × the
 * highest output price, plus the highest per-request price, plus one image at the highest image price when the
 * request asks for image output.
 */
import type { CanonicalRequest } from "../model/request.ts";
import type { Catalog } from "../routing/catalog.ts";
import { ceilingOf, mergeCeilings, type PriceCeiling } from "../routing/profile.ts";
import { promptTokenBound, type PromptSize } from "./estimate.ts";

/** The reservation for one request. */
export interface ReservationSize {
  /** USD. */
  amount: number;
  /** Output tokens assumed: the request's max_tokens, else the endpoints' largest max output, else the default. */
  outputTokens: number;
  /** True when neither the request nor any endpoint bounds the output (the caller then caps the request). */
  unbounded: boolean;
  /** USD the prompt, the per-request price and an asked-for image take before any output. */
  fixedCost: number;
  completionPrice: number;
}

/** The price ceiling of the request's models, or undefined when none is known (routing will answer 400). */
export function ceilingFor(request: CanonicalRequest, catalog: Catalog): PriceCeiling | undefined {
  const ids = request.models.length === 0 && request.model !== undefined ? [request.model] : [request.model, ...request.models];
  const found: PriceCeiling[] = [];
  for (const id of new Set(ids)) {
    const model = id === undefined ? undefined : catalog.get(id);
    if (model) found.push(ceilingOf(model.endpoints));
  }
  if (found.length === 0) return undefined;
  return found.length === 1 ? found[0] : mergeCeilings(found);
}

/** Per catalog version: discovered models change the catalog (core/routing/discovery.ts). */
const catalogCeilings = new WeakMap<Catalog, { version: number; ceiling: PriceCeiling }>();

/**
 * The price ceiling over every model of the catalog: what a request for a router's model id (`service/auto`, which
 * may pick any model) reserves, since its model is chosen only after the reservation.
 */
export function catalogCeiling(catalog: Catalog): PriceCeiling | undefined {
  const known = catalogCeilings.get(catalog);
  if (known?.version === catalog.version) return known.ceiling;
  const models = catalog.list();
  if (models.length === 0) return undefined;
  const ceiling = mergeCeilings(models.map((model) => ceilingOf(model.endpoints)));
  catalogCeilings.set(catalog, { version: catalog.version, ceiling });
  return ceiling;
}

/** Sizes the reservation. */
export function sizeReservation(request: CanonicalRequest, prompt: PromptSize, ceiling: PriceCeiling, defaultMaxOutput: number): ReservationSize {
  const declared = request.maxTokens ?? ceiling.maxOutputTokens;
  const outputTokens = declared ?? defaultMaxOutput;
  const image = request.modalities?.includes("image") === true ? (ceiling.imagePrice ?? 0) : 0;
  const fixedCost = promptTokenBound(prompt) * ceiling.promptPrice + ceiling.requestPrice + image;
  return {
    amount: fixedCost + outputTokens * ceiling.completionPrice,
    outputTokens,
    unbounded: declared === undefined,
    fixedCost,
    completionPrice: ceiling.completionPrice,
  };
}
