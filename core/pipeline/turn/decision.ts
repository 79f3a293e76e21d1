/** A turn's routing decision as plugins see it (endpoint views), carrying the internal route for `turn` to reuse. */
import type { RouteDecision } from "../../registry/plugin.ts";
import { endpointView } from "../../routing/catalog-view.ts";
import type { RoutingRuntime } from "../../routing/runtime.ts";
import type { TurnRoute } from "./route.ts";

const ROUTE = Symbol("turn-route");

type Decision = RouteDecision & { readonly [ROUTE]: TurnRoute };

export function decisionOf(route: TurnRoute, routing: RoutingRuntime): RouteDecision {
  const decision: Decision = { endpoints: Object.freeze(route.candidates.map((c) => endpointView(c, routing))), [ROUTE]: route };
  return Object.freeze(decision);
}

/** The route behind a decision made by this gateway; undefined for anything else. */
export function routeOf(decision: RouteDecision): TurnRoute | undefined {
  return (decision as Partial<Decision>)[ROUTE];
}
