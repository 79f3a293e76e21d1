/** The model catalog: every configured model id with its endpoints (one per provider serving it). Built once. */
import type { ModelConfig, ProviderConfig } from "../config/types.ts";
import type { RegisteredProvider } from "../registry/define.ts";
import { checkModuleOptions } from "../registry/options.ts";
import type { UpstreamTarget } from "../registry/provider.ts";
import type { Registry } from "../registry/registry.ts";
import { ModuleError } from "../registry/registry.ts";

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

export class Catalog {
  private readonly models = new Map<string, CatalogModel>();

  add(endpoint: Endpoint): void {
    const existing = this.models.get(endpoint.model.id);
    if (existing) existing.endpoints.push(endpoint);
    else this.models.set(endpoint.model.id, { id: endpoint.model.id, endpoints: [endpoint] });
  }

  get(modelId: string): CatalogModel | undefined {
    return this.models.get(modelId);
  }

  list(): CatalogModel[] {
    return [...this.models.values()];
  }
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
    const adapter = registry.provider(provider.adapter);
    if (!adapter) {
      throw new ModuleError(
        `invalid config field "providers[${index}].adapter": unknown adapter "${provider.adapter}" (known: ${registry.providerIds().join(", ")})`,
      );
    }
    checkModuleOptions(adapter, provider.options, `providers[${index}] (${provider.id})`);
    for (const model of provider.models) {
      const target = prepared(adapter, index, {
        providerId: provider.id,
        baseUrl: provider.baseUrl,
        apiKey: provider.apiKey,
        upstreamModel: model.upstreamModel,
        headers: provider.headers,
        options: provider.options,
        ...(provider.region !== undefined ? { region: provider.region } : {}),
        ...(provider.credentials !== undefined ? { credentials: Object.freeze({ ...provider.credentials }) } : {}),
      });
      catalog.add({ model, provider, adapter, target: Object.freeze(target) });
    }
  });
  return catalog;
}
