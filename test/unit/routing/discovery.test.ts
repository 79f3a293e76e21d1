/** core/routing/discovery.ts: what a provider's server lists becomes catalog endpoints; failures keep what was there. */
import { afterEach, expect, test } from "bun:test";
import pino from "pino";
import type { DiscoveredModel } from "../../../core/registry/provider.ts";
import { defineProvider } from "../../../core/registry/define.ts";
import { Registry } from "../../../core/registry/registry.ts";
import { buildCatalog } from "../../../core/routing/catalog.ts";
import { createModelDiscovery, type ModelDiscovery } from "../../../core/routing/discovery.ts";
import { fakeHelpers, until } from "../providers/helpers.ts";
import { modelConfig, providerConfig } from "../pipeline/helpers.ts";

let discovery: ModelDiscovery | undefined;
afterEach(() => discovery?.stop());

/** A catalog with one discovering provider whose server answers `answers` in turn (an Error is a failed call). */
function rig(answers: Array<DiscoveredModel[] | Error | unknown>, configured = [modelConfig("local/own")], intervalMs = 20) {
  let calls = 0;
  const adapter = defineProvider({
    id: "local",
    description: "discovering test adapter",
    generate: () => Promise.reject(new Error("unused")),
    stream: () => Promise.reject(new Error("unused")),
    discoverModels: () => {
      const answer = answers[Math.min(calls++, answers.length - 1)];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer as DiscoveredModel[]);
    },
  });
  const registry = new Registry();
  registry.register(adapter, "test");
  const provider = { ...providerConfig("box", configured, "local"), discoveryIntervalMs: intervalMs };
  const catalog = buildCatalog([provider], registry);
  const tracked: string[] = [];
  discovery = createModelDiscovery({ catalog, helpers: fakeHelpers(), logger: pino({ level: "silent" }), routing: { track: async (keys) => void tracked.push(...keys) } });
  return { catalog, tracked, calls: () => calls };
}

const ids = (catalog: ReturnType<typeof rig>["catalog"]) => catalog.list().map((m) => m.id).sort();

test("the first round (awaited by start-up) serves what the server lists as <provider>/<name>, free, with its context", async () => {
  const { catalog, tracked } = rig([[{ id: "qwen3", contextLength: 32768 }, { id: "up-local/own" }, { id: "qwen3" }, { id: "" }]], [modelConfig("local/own")], 60_000);
  await discovery!.start();
  // The configured served name stays as configured; duplicates and nameless entries are skipped.
  expect(ids(catalog)).toEqual(["box/qwen3", "local/own"]);
  const endpoint = catalog.get("box/qwen3")!.endpoints[0]!;
  expect(endpoint.model).toMatchObject({ upstreamModel: "qwen3", pricing: { prompt: 0, completion: 0 }, contextLength: 32768 });
  expect(endpoint.target).toMatchObject({ providerId: "box", upstreamModel: "qwen3", baseUrl: "https://box.example/v1" });
  expect(tracked).toEqual(["box|box/qwen3"]);
});

test("an unchanged list changes nothing; a changed one replaces the provider's discovered models", async () => {
  const { catalog, calls } = rig([[{ id: "a" }], [{ id: "a" }], [{ id: "b" }]]);
  await discovery!.start();
  const version = catalog.version;
  await until(() => calls() >= 2);
  expect(catalog.version).toBe(version);
  await until(() => catalog.get("box/b") !== undefined);
  expect(ids(catalog)).toEqual(["box/b", "local/own"]);
});

test("a server that fails (or answers nonsense) keeps what it served, and is asked again", async () => {
  const { catalog, calls } = rig([[{ id: "a" }], new Error("ECONNREFUSED"), "not a list", [{ id: "a" }, { id: "c" }]]);
  await discovery!.start();
  await until(() => calls() >= 3);
  expect(ids(catalog)).toEqual(["box/a", "local/own"]);
  await until(() => catalog.get("box/c") !== undefined);
});

test("down at start-up: start-up goes on with the configured models only", async () => {
  const { catalog } = rig([new Error("ECONNREFUSED")], [modelConfig("local/own")], 60_000);
  await discovery!.start();
  expect(ids(catalog)).toEqual(["local/own"]);
});
