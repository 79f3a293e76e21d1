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

/** Every router's model id: a router cannot be a candidate (or a fallback) of another (jev-router: a 400). */
export const ROUTER_MODELS = ["service/auto", "service/auto-beta", "service/pareto-code", "service/pareto-code:nitro", "typesafe/jev-router", "nvidia/switchyard"] as const;
