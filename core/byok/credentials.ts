/**
 * The BYOK credentials a request may use (README "Bring your own keys"): its workspace's, and its own key's, which
 * win for their provider. Each replaces the operator's `api_key` only on endpoints of its own provider, so it is
 * never sent to another provider's host. Read with the workspace's settings (cached, core/workspaces/settings-service.ts),
 * decrypted there once per refresh.
 */
import type { Endpoint } from "../routing/catalog.ts";
import { modelMatches } from "../guardrails/model-lists.ts";

/** One usable credential; `secret` undefined when it cannot be decrypted (no or another GATEWAY_SECRET_KEY). */
export interface ByokEntry {
  id: string;
  provider: string;
  keyHash: string | null;
  secret: string | undefined;
  /** Never fall back to the operator's credentials (the default). */
  byokOnly: boolean;
  allowedModels: readonly string[] | null;
}

/** The endpoint as the BYOK credential calls it; the operator's endpoint it stands for. */
const originals = new WeakMap<Endpoint, { original: Endpoint; entry: ByokEntry }>();
/** One clone per credential and endpoint while the credential's entry lives (a refresh makes new entries). */
const clones = new WeakMap<ByokEntry, Map<Endpoint, Endpoint>>();

/** The credential of `entries` that applies to `endpoint` for the key `keyHash`: its own first, then the workspace's. */
export function credentialFor(entries: readonly ByokEntry[], keyHash: string, endpoint: Endpoint): ByokEntry | undefined {
  let workspaceWide: ByokEntry | undefined;
  for (const entry of entries) {
    if (entry.provider !== endpoint.provider.id) continue;
    if (entry.allowedModels && !entry.allowedModels.some((p) => modelMatches(endpoint.model.id, p))) continue;
    if (entry.keyHash === keyHash) return entry;
    if (entry.keyHash === null) workspaceWide ??= entry;
  }
  return workspaceWide;
}

/** `endpoint` with the credential in place of the operator's key (the same object each time for one entry). */
export function byokEndpoint(endpoint: Endpoint, entry: ByokEntry & { secret: string }): Endpoint {
  let byEndpoint = clones.get(entry);
  if (!byEndpoint) clones.set(entry, (byEndpoint = new Map()));
  let clone = byEndpoint.get(endpoint);
  if (!clone) {
    clone = Object.freeze({ ...endpoint, target: Object.freeze({ ...endpoint.target, apiKey: entry.secret }) });
    originals.set(clone, { original: endpoint, entry });
    byEndpoint.set(endpoint, clone);
  }
  return clone;
}

/** The operator's endpoint a BYOK endpoint stands for, and its credential; undefined for an operator's endpoint. */
export function byokOf(endpoint: Endpoint): { original: Endpoint; entry: ByokEntry } | undefined {
  return originals.get(endpoint);
}
