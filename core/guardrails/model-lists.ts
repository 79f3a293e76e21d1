/**
 * Model and provider lists of the guardrails that apply: a request may only reach a model every
 * allow-list admits and no ignore-list names, on providers likewise. Models that fail are dropped from the request's
 * fallbacks; when none is left the request is blocked (403, no stage detail, as the reference's budget and allow-list
 * blocks). Provider lists become the request's own `provider.only` / `provider.ignore` (intersected with what the
 * caller asked), so routing, fallbacks and `service_metadata` exclusions all follow them; a model that no allowed
 * provider serves is blocked here rather than reported as a routing 404. `enforce_zdr_*` likewise sets `provider.zdr`.
 */
import { GatewayError } from "../errors.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { Catalog } from "../routing/catalog.ts";
import { zdrFamilyOf, type GuardrailRef, type Policy } from "./policy.ts";

/** `openai/gpt-4o` matches itself; `openai/*` (or `openai/`) any model of that author; `*` every model. */
export function modelMatches(model: string, pattern: string): boolean {
  if (pattern === "*" || pattern === model) return true;
  if (pattern.endsWith("/*")) return model.startsWith(pattern.slice(0, -1));
  if (pattern.endsWith("/")) return model.startsWith(pattern);
  if (pattern.endsWith("*")) return model.startsWith(pattern.slice(0, -1));
  return false;
}

/** The guardrail that refuses `model`, or undefined when every list lets it through. */
function refusing(policy: Policy, model: string): GuardrailRef | undefined {
  for (const { guardrail, patterns } of policy.allowedModels) if (!patterns.some((p) => modelMatches(model, p))) return guardrail;
  for (const { guardrail, patterns } of policy.ignoredModels) if (patterns.some((p) => modelMatches(model, p))) return guardrail;
  return undefined;
}

function blocked(message: string, guardrail: GuardrailRef): GatewayError {
  return new GatewayError("permission_denied", message, { metadata: { guardrail_id: guardrail.id, guardrail_name: guardrail.name } });
}

/** Narrows the request to what the lists allow, or throws the 403. Models of router plugins are left to them. */
export function applyModelLists(policy: Policy, request: CanonicalRequest, catalog: Catalog): void {
  const hasModelLists = policy.allowedModels.length > 0 || policy.ignoredModels.length > 0;
  const hasProviderLists = policy.allowedProviders.length > 0 || policy.ignoredProviders.length > 0;
  if (!hasModelLists && !hasProviderLists && policy.zdrFamilies.size === 0) return;
  const requested = [request.model, ...request.models].filter((m): m is string => m !== undefined);
  let models = requested;
  if (hasModelLists && requested.length > 0) {
    const kept = requested.filter((m) => refusing(policy, m) === undefined);
    if (kept.length === 0) {
      const by = refusing(policy, requested[0]!)!;
      throw blocked(`Request blocked by guardrail "${by.name}": model ${requested[0]} is not allowed`, by);
    }
    if (kept.length < requested.length) {
      request.warnings.push({ code: "dropped", field: "models", message: `guardrails removed ${requested.filter((m) => !kept.includes(m)).join(", ")} from this request's models` });
      request.model = kept[0];
      request.models = kept.slice(1);
    }
    models = kept;
  }
  if (hasProviderLists) narrowProviders(policy, request, catalog, models);
  if (policy.zdrFamilies.size > 0 && models.some((m) => policy.zdrFamilies.has(zdrFamilyOf(m)))) {
    request.provider = { ...request.provider, zdr: true };
  }
}

function narrowProviders(policy: Policy, request: CanonicalRequest, catalog: Catalog, models: readonly string[]): void {
  const prefs = (request.provider ?? {}) as { only?: string[] | null; ignore?: string[] | null };
  let only: Set<string> | undefined = prefs.only ? new Set(prefs.only) : undefined;
  for (const { providers } of policy.allowedProviders) only = new Set(only ? [...only].filter((p) => providers.includes(p)) : providers);
  const ignore = new Set(prefs.ignore ?? []);
  for (const { providers } of policy.ignoredProviders) for (const p of providers) ignore.add(p);
  const allowed = (provider: string) => (!only || only.has(provider)) && !ignore.has(provider);
  // Blocked here when no endpoint of any requested model is allowed (a known model; unknown ones are routing's 400).
  const known = models.map((m) => catalog.get(m)).filter((m) => m !== undefined);
  if (known.length > 0 && !known.some((m) => m.endpoints.some((e) => allowed(e.provider.id)))) {
    // Named: an allow-list that admits none of the endpoints on its own, else the first list there is.
    const serves = (providers: readonly string[]) => known.some((m) => m.endpoints.some((e) => providers.includes(e.provider.id)));
    const lists = [...policy.allowedProviders, ...policy.ignoredProviders];
    const by = (policy.allowedProviders.find(({ providers }) => !serves(providers)) ?? lists[0]!).guardrail;
    throw blocked(`Request blocked by guardrail "${by.name}": no allowed provider serves ${models[0]}`, by);
  }
  request.provider = { ...request.provider, ...(only ? { only: [...only] } : {}), ...(ignore.size > 0 ? { ignore: [...ignore] } : {}) };
}
