/** core/routing/catalog.ts: one entry per model id, one endpoint per provider serving it; checked at build. */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { defineProvider } from "../../../core/registry/define.ts";
import { ModuleError, Registry } from "../../../core/registry/registry.ts";
import { buildCatalog, endpointOf } from "../../../core/routing/catalog.ts";
import { modelConfig, providerConfig } from "../pipeline/helpers.ts";

const adapter = (id: string, optionsSchema?: ReturnType<typeof Type.Object>) =>
  defineProvider({
    id,
    description: "test adapter",
    ...(optionsSchema ? { optionsSchema } : {}),
    generate: () => Promise.reject(new Error("unused")),
    stream: () => Promise.reject(new Error("unused")),
  });

function registryWith(...adapters: ReturnType<typeof adapter>[]): Registry {
  const registry = new Registry();
  for (const a of adapters) registry.register(a, a.id);
  return registry;
}

describe("buildCatalog", () => {
  test("groups endpoints by model id across providers, in config order", () => {
    const openai = adapter("openai");
    const sim = adapter("simulator");
    const shared1 = modelConfig("shared/model");
    const shared2 = modelConfig("shared/model");
    const only = modelConfig("acme/only");
    const providers = [providerConfig("acme", [shared1, only], "openai"), providerConfig("sim", [shared2], "simulator")];
    const catalog = buildCatalog(providers, registryWith(openai, sim));

    expect(catalog.list().map((m) => m.id)).toEqual(["shared/model", "acme/only"]);
    const shared = catalog.get("shared/model")!;
    expect(shared.endpoints.map((e) => [e.provider.id, e.adapter.id])).toEqual([
      ["acme", "openai"],
      ["sim", "simulator"],
    ]);
    expect(shared.endpoints[0]!.model).toBe(shared1);
    expect(shared.endpoints[1]!.model).toBe(shared2);
    expect(catalog.get("acme/only")!.endpoints).toHaveLength(1);
    expect(catalog.get("missing")).toBeUndefined();
  });

  test("each endpoint's upstream target is what the adapter needs, frozen", () => {
    const model = modelConfig("acme/a");
    const provider = { ...providerConfig("acme", [model], "openai"), headers: { "x-org": "o" }, options: { t: 1 } };
    const target = buildCatalog([provider], registryWith(adapter("openai"))).get("acme/a")!.endpoints[0]!.target;
    expect(target).toEqual({
      providerId: "acme",
      baseUrl: "https://acme.example/v1",
      apiKey: "k",
      upstreamModel: "up-acme/a",
      headers: { "x-org": "o" },
      options: { t: 1 },
    });
    expect(Object.isFrozen(target)).toBe(true);
  });

  test("an unknown adapter stops start-up naming the field and the known adapters", () => {
    const providers = [providerConfig("ok", [modelConfig("m")], "openai"), providerConfig("bad", [modelConfig("n")], "anthropic")];
    expect(() => buildCatalog(providers, registryWith(adapter("openai"), adapter("simulator")))).toThrow(
      new ModuleError('invalid config field "providers[1].adapter": unknown adapter "anthropic" (known: openai, simulator)'),
    );
  });

  test("provider options are checked against the adapter's schema, naming the provider", () => {
    const strict = adapter("strict", Type.Object({ timeout_ms: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }));
    const good = { ...providerConfig("p", [modelConfig("m")], "strict"), options: { timeout_ms: 5 } };
    expect(() => buildCatalog([good], registryWith(strict))).not.toThrow();
    const bad = { ...good, options: { timeout_ms: 0 } };
    expect(() => buildCatalog([good, bad], registryWith(strict))).toThrow(/^providers\[1\] \(p\): invalid options\.timeout_ms:/);
  });

  test("a provider entry without base_url stops start-up, unless its adapter completes the target", () => {
    const { baseUrl: _b, ...rest } = providerConfig("p", [modelConfig("m")], "openai");
    const noUrl = { ...rest, baseUrl: "" };
    expect(() => buildCatalog([noUrl], registryWith(adapter("openai")))).toThrow(new ModuleError('invalid config field "providers[0].base_url": required'));
    const cloud = defineProvider({
      ...adapter("cloud"),
      prepareTarget: (target) => {
        if (target.region === undefined) throw new Error("region: required by the cloud adapter");
        return { ...target, baseUrl: `https://${target.region}.cloud.example` };
      },
    });
    const regional = { ...noUrl, adapter: "cloud", region: "eu-west-1", credentials: { key: "s" } };
    const target = buildCatalog([regional], registryWith(cloud)).get("m")!.endpoints[0]!.target;
    expect(target).toMatchObject({ baseUrl: "https://eu-west-1.cloud.example", region: "eu-west-1", credentials: { key: "s" } });
    expect(Object.isFrozen(target)).toBe(true);
    expect(() => buildCatalog([{ ...noUrl, adapter: "cloud" }], registryWith(cloud))).toThrow(
      new ModuleError('invalid config field "providers[0].region": required by the cloud adapter'),
    );
  });

  test("an empty provider list is an empty catalog", () => {
    expect(buildCatalog([], new Registry()).list()).toEqual([]);
  });

  test("a provider without models is refused unless its adapter discovers them", () => {
    const plain = { ...providerConfig("p", [], "openai") };
    expect(() => buildCatalog([plain], registryWith(adapter("openai")))).toThrow(/^invalid config field "providers\[0\]\.models": required/);
    const discovering = defineProvider({ ...adapter("local"), discoverModels: () => Promise.resolve([]) });
    expect(buildCatalog([providerConfig("l", [], "local")], registryWith(discovering)).list()).toEqual([]);
    // Discovery switched off (interval 0) needs the models written down again.
    expect(() => buildCatalog([{ ...providerConfig("l", [], "local"), discoveryIntervalMs: 0 }], registryWith(discovering))).toThrow(/models": required/);
  });
});

describe("kinds", () => {
  const calls: string[] = [];
  const withKinds = defineProvider({
    ...adapter("compat"),
    generate: () => (calls.push("base"), Promise.reject(new Error("base"))),
    kinds: {
      cloud: { description: "a cloud", defaultBaseUrl: "https://cloud.example/v1/", requiresKey: true, generate: () => (calls.push("cloud"), Promise.reject(new Error("cloud"))) },
      local: { description: "a local server" },
    },
  });

  test("a kind's calls replace the adapter's for that provider only; its default base URL fills a missing one", async () => {
    const cloud = { ...providerConfig("c", [modelConfig("c/m")], "compat"), kind: "cloud", baseUrl: "" };
    const plain = providerConfig("p", [modelConfig("p/m")], "compat");
    const catalog = buildCatalog([cloud, plain], registryWith(withKinds));
    const kindEndpoint = catalog.get("c/m")!.endpoints[0]!;
    expect(kindEndpoint.target.baseUrl).toBe("https://cloud.example/v1");
    expect(kindEndpoint.adapter.id).toBe("compat");
    await kindEndpoint.adapter.generate({} as never).catch(() => undefined);
    await catalog.get("p/m")!.endpoints[0]!.adapter.generate({} as never).catch(() => undefined);
    expect(calls).toEqual(["cloud", "base"]);
    // A configured base URL wins over the kind's.
    const own = buildCatalog([{ ...cloud, baseUrl: "https://proxy.example/v1" }], registryWith(withKinds));
    expect(own.get("c/m")!.endpoints[0]!.target.baseUrl).toBe("https://proxy.example/v1");
  });

  test("an unknown kind, a missing base URL and a missing required key stop start-up naming the field", () => {
    const registry = registryWith(withKinds);
    expect(() => buildCatalog([{ ...providerConfig("c", [modelConfig("m")], "compat"), kind: "nope" }], registry)).toThrow(
      'invalid config field "providers[0].kind": adapter "compat" has no kind "nope" (known: cloud, local)',
    );
    expect(() => buildCatalog([{ ...providerConfig("c", [modelConfig("m")], "compat"), kind: "local", baseUrl: "" }], registry)).toThrow(
      'invalid config field "providers[0].base_url": required (kind "local" has no default)',
    );
    expect(() => buildCatalog([{ ...providerConfig("c", [modelConfig("m")], "compat"), kind: "cloud", apiKey: undefined }], registry)).toThrow(
      'invalid config field "providers[0].api_key": required for kind "cloud"',
    );
  });
});

describe("discovered endpoints", () => {
  test("replace the provider's earlier ones with new lists, and change the version", () => {
    const catalog = buildCatalog([providerConfig("acme", [modelConfig("acme/a")], "openai")], registryWith(adapter("openai")));
    const resolved = catalog.providers.get("acme")!;
    const before = catalog.version;
    const first = catalog.get("acme/a")!;
    catalog.setDiscovered("acme", [endpointOf(resolved, modelConfig("acme/x")), endpointOf(resolved, modelConfig("acme/a"))]);
    expect(catalog.version).not.toBe(before);
    expect(catalog.list().map((m) => m.id)).toEqual(["acme/a", "acme/x"]);
    expect(catalog.get("acme/a")!.endpoints).toHaveLength(2);
    // The configured model's list was replaced, not changed under whoever holds it.
    expect(first.endpoints).toHaveLength(1);
    catalog.setDiscovered("acme", [endpointOf(resolved, modelConfig("acme/y"))]);
    expect(catalog.list().map((m) => m.id)).toEqual(["acme/a", "acme/y"]);
    expect(catalog.get("acme/a")!.endpoints).toHaveLength(1);
    expect(catalog.discoveredOf("acme").map((e) => e.model.id)).toEqual(["acme/y"]);
  });
});
