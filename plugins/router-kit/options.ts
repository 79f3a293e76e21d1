/** Option schemas the routers share (spec "auto-beta-router plugin", "Limits"). */
import { Type } from "@sinclair/typebox";
import { PATTERN_LIMITS } from "./patterns.ts";

/**
 * Routers run first (outermost), so every other plugin's `pre` hook, and every turn, sees the chosen model and not
 * the router's model id.
 */
export const ROUTER_PRIORITY = -100;

/** `allowed_models` / `excluded_models`; the 65,536-character total is checked by patterns.ts. */
export const ModelPatterns = Type.Array(Type.String({ minLength: 1, maxLength: PATTERN_LIMITS.length }), { maxItems: PATTERN_LIMITS.count });

export const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

/**
 * A router's model ids: ours (`service/auto`) and the peer's spelling of the same slug (`openrouter/auto`), so a
 * client written for the peer (its SDK, its docs' model ids) reaches the router unchanged. A catalog model of that
 * id, if the operator has one, wins (core/pipeline/plugins/active.ts, ./choose.ts).
 */
export function routerSlugs(...ours: string[]): string[] {
  return ours.flatMap((slug) => (slug.startsWith("service/") ? [slug, `openrouter/${slug.slice("service/".length)}`] : [slug]));
}

/** Every router's model id: a router cannot be a candidate (or a fallback) of another (jev-router: a 400). */
export const ROUTER_MODELS: readonly string[] = routerSlugs("service/auto", "service/auto-beta", "service/pareto-code", "service/pareto-code:nitro", "typesafe/jev-router", "nvidia/switchyard");
