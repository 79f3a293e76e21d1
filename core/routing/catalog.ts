/**
 * The model catalog: every served model id with its endpoints (one per provider serving it). Built at start-up from
 * the config; providers whose adapter discovers models (core/routing/discovery.ts) add theirs when the server answers.
 * Lists are replaced, never mutated in place, so whatever was derived from one (price ceilings, core/routing/profile.ts)
 * stays true of it; `version` changes with every change, for the views built from the whole catalog.
 */
import type { ModelConfig, ProviderConfig } from "../config/types.ts";
import type { RegisteredProvider } from "../registry/define.ts";
import { checkModuleOptions } from "../registry/options.ts";
import type { UpstreamTarget } from "../registry/provider.ts";
import type { Registry } from "../registry/registry.ts";
import { ModuleError } from "../registry/registry.ts";
import { retrievalSupportProblem } from "../retrieval/model-task.ts";

/** One way to serve a model: a provider, its adapter, and the upstream target it calls. */
export interface Endpoint {
  model: ModelConfig;
  provider: ProviderConfig;
  adapter: RegisteredProvider;
  target: UpstreamTarget;
}

export interface CatalogModel {
  id: string;
  endpoints: Endpoint[];
}

/** A configured provider with its adapter (its kind's, when it names one) and base URL resolved. */
export interface ResolvedProvider {
  config: ProviderConfig;
  adapter: RegisteredProvider;
  baseUrl: string;
  /** Its place in the config's `providers`, for the start-up errors that name a field. */
  index: number;
}

export class Catalog {
  private readonly models = new Map<string, CatalogModel>();
  private readonly discovered = new Map<string, Endpoint[]>();
  private changes = 0;
  /** The providers the catalog was built from, by id (empty for a hand-built catalog). */
  readonly providers = new Map<string, ResolvedProvider>();

  /** Changes with every change to the served models (a view built from `list()` is rebuilt when it differs). */
  get version(): number {
    return this.changes;
  }

  add(endpoint: Endpoint): void {
    const existing = this.models.get(endpoint.model.id);
    this.models.set(endpoint.model.id, { id: endpoint.model.id, endpoints: existing ? [...existing.endpoints, endpoint] : [endpoint] });
    this.changes++;
  }

  get(modelId: string): CatalogModel | undefined {
    return this.models.get(modelId);
  }

  list(): CatalogModel[] {
    return [...this.models.values()];
  }

  /** The endpoints a provider's server said it serves, replacing what it said before. */
  setDiscovered(providerId: string, endpoints: Endpoint[]): void {
    for (const old of this.discovered.get(providerId) ?? []) {
      const model = this.models.get(old.model.id);
      if (!model) continue;
      const rest = model.endpoints.filter((e) => e !== old);
      if (rest.length === 0) this.models.delete(model.id);
      else this.models.set(model.id, { id: model.id, endpoints: rest });
    }
    this.discovered.set(providerId, endpoints);
    for (const endpoint of endpoints) this.add(endpoint);
    this.changes++;
  }

  /** What a provider's server said it serves, last time it answered. */
  discoveredOf(providerId: string): readonly Endpoint[] {
    return this.discovered.get(providerId) ?? [];
  }
}

/** The endpoint of one model at one resolved provider (its target frozen: adapters get it on every call). */
export function endpointOf(resolved: ResolvedProvider, model: ModelConfig): Endpoint {
  const provider = resolved.config;
  const target = prepared(resolved.adapter, resolved.index, {
    providerId: provider.id,
    baseUrl: resolved.baseUrl,
    apiKey: provider.apiKey,
    upstreamModel: model.upstreamModel,
    headers: provider.headers,
    options: provider.options,
    ...(provider.region !== undefined ? { region: provider.region } : {}),
    ...(provider.credentials !== undefined ? { credentials: Object.freeze({ ...provider.credentials }) } : {}),
  });
  return { model, provider, adapter: resolved.adapter, target: Object.freeze(target) };
}

/**
 * The adapter a provider entry calls: the registered one, or, with `kind`, the registered one with that kind's
 * functions in place of its own (resolved here, once, so requests never look a kind up). Unknown adapters and kinds,
 * a missing base URL or a missing key a kind requires stop start-up naming the field.
 */
export function resolveProvider(provider: ProviderConfig, index: number, registry: Registry): ResolvedProvider {
  const where = `providers[${index}]`;
  const base = registry.provider(provider.adapter);
  if (!base) {
    throw new ModuleError(`invalid config field "${where}.adapter": unknown adapter "${provider.adapter}" (known: ${registry.providerIds().join(", ")})`);
  }
  checkModuleOptions(base, provider.options, `${where} (${provider.id})`);
  if (provider.kind === undefined) return { config: provider, adapter: base, baseUrl: provider.baseUrl, index };
  const kinds = base.kinds ?? {};
  const kind = Object.hasOwn(kinds, provider.kind) ? kinds[provider.kind] : undefined;
  if (!kind) {
    const known = Object.keys(kinds);
    throw new ModuleError(`invalid config field "${where}.kind": adapter "${provider.adapter}" has no kind "${provider.kind}"${known.length > 0 ? ` (known: ${known.join(", ")})` : ""}`);
  }
  const baseUrl = (provider.baseUrl || kind.defaultBaseUrl || "").replace(/\/+$/, "");
  if (baseUrl === "") throw new ModuleError(`invalid config field "${where}.base_url": required (kind "${provider.kind}" has no default)`);
  if (kind.requiresKey === true && !provider.apiKey) throw new ModuleError(`invalid config field "${where}.api_key": required for kind "${provider.kind}"`);
  const { description: _description, defaultBaseUrl: _url, requiresKey: _key, ...calls } = kind;
  // The brand and id stay the registered adapter's; the kind's calls replace its own.
  const adapter = Object.freeze({ ...base, ...calls }) as RegisteredProvider;
  return { config: provider, adapter, baseUrl, index };
}

/** The target after the adapter's own start-up check (`prepareTarget`); a problem names the provider entry's field. */
function prepared(adapter: RegisteredProvider, index: number, target: UpstreamTarget): UpstreamTarget {
  let out = target;
  if (adapter.prepareTarget) {
    try {
      out = adapter.prepareTarget(target);
    } catch (thrown) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      const colon = message.indexOf(": ");
      const field = colon > 0 && /^[\w.[\]]+$/.test(message.slice(0, colon)) ? message.slice(0, colon) : "";
      throw new ModuleError(field ? `invalid config field "providers[${index}].${field}": ${message.slice(colon + 2)}` : `providers[${index}] (${target.providerId}): ${message}`);
    }
  }
  if (!out.baseUrl) throw new ModuleError(`invalid config field "providers[${index}].base_url": required`);
  return out;
}

/** Resolves every provider's adapter and checks its options; a bad entry stops start-up naming the field. */
export function buildCatalog(providers: readonly ProviderConfig[], registry: Registry): Catalog {
  const catalog = new Catalog();
  providers.forEach((provider, index) => {
    const resolved = resolveProvider(provider, index, registry);
    if (provider.models.length === 0 && (resolved.adapter.discoverModels === undefined || provider.discoveryIntervalMs === 0)) {
      throw new ModuleError(`invalid config field "providers[${index}].models": required (this adapter does not discover the server's models)`);
    }
    catalog.providers.set(provider.id, resolved);
    provider.models.forEach((model, m) => {
      const problem = retrievalSupportProblem(resolved.adapter, model);
      if (problem) throw new ModuleError(`invalid config field "providers[${index}].models[${m}].output_modalities": ${problem}`);
      catalog.add(endpointOf(resolved, model));
    });
  });
  return catalog;
}
