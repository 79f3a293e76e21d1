/**
 * Service tiers (spec `service_tier`): which endpoint tiers can serve a requested tier, best first. `fast` was
 * decoded to `priority`; `ultrafast` prefers ultrafast endpoints, then priority, then default ones. A tier no
 * endpoint declares is a preference, not a filter: the request is then served at the default tier and the result
 * says so (as upstreams that cannot honour a requested tier do).
 */
import type { ServiceTier } from "../model/request.ts";

const CHAINS: Record<ServiceTier, readonly string[]> = {
  auto: ["default"],
  default: ["default"],
  flex: ["flex", "default"],
  priority: ["priority", "default"],
  scale: ["scale", "default"],
  ultrafast: ["ultrafast", "priority", "default"],
};

/** The endpoint tiers that may serve `requested`, most preferred first. */
export function tierChain(requested: ServiceTier | undefined): readonly string[] {
  return CHAINS[requested ?? "default"];
}

/**
 * The tier an endpoint would serve the request at, and its rank in the chain (lower is better); undefined when
 * the endpoint offers none of them (e.g. a flex-only endpoint for a default request).
 */
export function tierFor(chain: readonly string[], offered: ReadonlySet<string>): { tier: string; rank: number } | undefined {
  for (let rank = 0; rank < chain.length; rank++) {
    const tier = chain[rank]!;
    if (offered.has(tier)) return { tier, rank };
  }
  return undefined;
}
