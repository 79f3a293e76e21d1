/**
 * The worst case of one model turn, as a credit hold sizes it (README "Accounting, credits and rate limits"): the
 * limits stage's reservation, a guardrail budget's, and every later turn's hold on the request's bill all use this one
 * measure, so what one holds the others would hold too.
 */
import type { BillTerms } from "../accounting/bill.ts";
import { limitsOf } from "../config/routing-limits.ts";
import type { Deps } from "../deps.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { ApiKeyRecord } from "../store/types/keys.ts";
import { promptSize, type PromptSize } from "./estimate.ts";
import { limitsErrorLog } from "./failures.ts";
import { catalogCeiling, ceilingFor, sizeReservation, type ReservationSize } from "./reservation.ts";

type SizingDeps = Pick<Deps, "catalog" | "config" | "registry">;

/** The worst case of one turn of `request`; caps an unbounded output so the actual cost stays within it. */
export function turnSize(deps: SizingDeps, request: CanonicalRequest, prompt: PromptSize = promptSize(request)): ReservationSize | undefined {
  const ceiling = routedByPlugin(deps, request) ? catalogCeiling(deps.catalog) : ceilingFor(request, deps.catalog);
  if (!ceiling) return undefined;
  const size = sizeReservation(request, prompt, ceiling, limitsOf(deps.config).defaultMaxOutputTokens);
  if (size.unbounded) {
    // Nothing bounds the output: cap it, or the actual cost could exceed the hold (and so the limit).
    request.maxTokens = size.outputTokens;
    request.warnings.push({ code: "approximated", field: "max_tokens", message: `max_tokens was set to ${size.outputTokens} to bound this key's credit reservation` });
  }
  return size;
}

/**
 * What a bill holding credit for `request` needs to hold more (Bill.open): every later turn sized as above, the key's
 * limit for the 402 of one that does not fit, and the model the first hold was sized for — none when a router picks
 * the model after it (it was then sized for the catalog's dearest, so any model is covered).
 */
export function billTerms(deps: SizingDeps & Pick<Deps, "logger">, record: Pick<ApiKeyRecord, "limit" | "limitReset">, request: CanonicalRequest): BillTerms {
  return {
    worstCase: (turn) => turnSize(deps, turn),
    limit: record.limit,
    limitReset: record.limitReset,
    sizedFor: routedByPlugin(deps, request) ? undefined : request.model,
    logError: limitsErrorLog(deps.logger),
  };
}

/**
 * A request for a router plugin's model id (`service/auto`), or with no model and a router's entry: its model is
 * chosen after the reservation, so any model of the catalog may serve it.
 */
function routedByPlugin(deps: SizingDeps, request: CanonicalRequest): boolean {
  const { model } = request;
  const registry = deps.registry;
  if (model === undefined) {
    return request.models.length === 0 && request.plugins.some((entry) => entry.enabled !== false && (registry.plugin(entry.id)?.models?.length ?? 0) > 0);
  }
  return deps.catalog.get(model) === undefined && registry.orderedPlugins().some((p) => p.models?.includes(model) === true);
}
