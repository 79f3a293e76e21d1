/**
 * The helpers an adapter gets for one provider: the shared ones, except that a provider with TLS settings in the
 * config (extra CA, client certificate, server name) gets a fetch that adds them to every call as Bun's `tls`
 * option — honoured by both upstream clients (core/upstream-http/fetch.ts and Bun's fetch), whatever the adapter.
 * Built once per provider and helpers object, not per call.
 */
import type { ProviderConfig } from "../../config/types.ts";
import type { ModuleHelpers } from "../../registry/helpers.ts";

const built = new WeakMap<ModuleHelpers, WeakMap<ProviderConfig, ModuleHelpers>>();

export function helpersFor(base: ModuleHelpers, provider: ProviderConfig): ModuleHelpers {
  const tls = provider.tls;
  if (!tls) return base;
  let perProvider = built.get(base);
  if (!perProvider) built.set(base, (perProvider = new WeakMap()));
  let helpers = perProvider.get(provider);
  if (!helpers) {
    const fetch = base.fetch;
    helpers = { ...base, fetch: (input, init) => fetch(input, { ...init, tls } as RequestInit) };
    perProvider.set(provider, helpers);
  }
  return helpers;
}
