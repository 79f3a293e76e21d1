/**
 * The catalog reads of the official OpenRouter SDK (`models.list` / `count` / `get`, `endpoints.list`,
 * `providers.list`) against the gateway's configured catalog, with true values: `supported_parameters` from what
 * each endpoint's adapter sends upstream (narrowed by the config), `architecture` from the declared output
 * modalities, `top_provider` from the endpoint default routing favours, latency from this process's measurements.
 * The non-simulated upstreams are never called (a closed loopback port).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatOnce, sdkClient, unknownVariants, type SdkRig } from "../support/openrouter-sdk.ts";

const NOWHERE = "http://127.0.0.1:1/v1";

let gw: TestGateway;
let rig: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        {
          id: "p-openai",
          adapter: "openai",
          base_url: NOWHERE,
          models: [
            { id: "acme/chat", upstream_model: "chat-1", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 8192, max_output_tokens: 1024 },
            { id: "shared/m", upstream_model: "m-oai", pricing: { prompt: 0.000003, completion: 0.000004 }, context_length: 16_000, max_output_tokens: 2000 },
            { id: "acme/painter", upstream_model: "paint-1", pricing: { prompt: 0.000001, completion: 0.000001, image: 0.01 }, output_modalities: ["text", "image"] },
          ],
        },
        {
          id: "p-anthropic",
          adapter: "anthropic",
          base_url: NOWHERE,
          models: [
            // The config narrows the adapter's list; `seed` has no Anthropic field, so it stays out.
            { id: "acme/claude", upstream_model: "claude-1", pricing: { prompt: 0.000003, completion: 0.000015 }, context_length: 200_000, supported_parameters: ["temperature", "seed", "tools"] },
            { id: "shared/m", upstream_model: "m-ant", pricing: { prompt: 0.000001, completion: 0.000001 }, context_length: 100_000, max_output_tokens: 4096, quantization: "fp8" },
          ],
        },
      ],
    },
  });
  rig = sdkClient(gw, gw.inferenceKey);
});
afterAll(async () => gw.close());

/** Every page of `models.list`, through the SDK's own offset paging. */
async function allModels(limit?: number) {
  const pages = [];
  for await (const page of await rig.sdk.models.list(limit === undefined ? {} : { limit })) pages.push(page.result);
  return pages;
}

describe("models", () => {
  test("models.list parses every model; the SDK's offset paging walks the whole catalog", async () => {
    const [page, ...more] = await allModels();
    expect(more).toEqual([]);
    expect(unknownVariants(page)).toEqual([]);
    const ids = page!.data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["acme/chat", "shared/m", "acme/painter", "acme/claude", "simulator/small"]));
    expect(page!.totalCount).toBe(ids.length);
    expect(page!.links.next).toBeNull();
    const paged = await allModels(2);
    expect(paged).toHaveLength(Math.ceil(ids.length / 2));
    expect(paged.flatMap((p) => p.data.map((m) => m.id))).toEqual(ids);
    expect(paged[0]!.links.next).toBe("/api/v1/models?offset=2&limit=2");
  });

  test("supported_parameters: what the adapter sends upstream, so an Anthropic model and a chat-completions model differ", async () => {
    const { data } = (await allModels())[0]!;
    const params = (id: string) => data.find((m) => m.id === id)!.supportedParameters;
    expect(params("acme/chat")).toEqual(expect.arrayContaining(["tools", "temperature", "seed", "frequency_penalty", "logit_bias", "logprobs", "reasoning"]));
    expect(params("acme/claude")).toEqual(["tools", "temperature"]);
    // The simulator answers structured-output formats with JSON of the schema.
    expect(params("simulator/small")).toEqual(["tools", "tool_choice", "max_tokens", "response_format", "structured_outputs"]);
    // A model served by both adapters offers what either endpoint honours.
    expect(params("shared/m")).toEqual(params("acme/chat"));
    // The SDK's `supported_parameters` filter keeps the models that honour all of them; other filters change nothing.
    const seeded = [];
    for await (const page of await rig.sdk.models.list({ supportedParameters: "seed,tools", category: "programming" })) seeded.push(...page.result.data.map((m) => m.id));
    expect(seeded.sort()).toEqual(["acme/chat", "acme/painter", "shared/m"]);
  });

  test("models.get: architecture from the declared modalities, top_provider from the cheapest endpoint", async () => {
    const shared = (await rig.sdk.models.get({ author: "shared", slug: "m" })).data;
    expect(shared).toMatchObject({ id: "shared/m", canonicalSlug: "shared/m", links: { details: "/api/v1/models/shared/m/endpoints" } });
    expect(shared.architecture).toMatchObject({ inputModalities: ["text"], outputModalities: ["text"], modality: "text->text" });
    // p-anthropic is cheaper per token, so default load balancing sends it most traffic.
    expect(shared.topProvider).toEqual({ contextLength: 100_000, maxCompletionTokens: 4096, isModerated: false });
    const painter = (await rig.sdk.models.get({ author: "acme", slug: "painter" })).data;
    expect(painter.architecture).toMatchObject({ outputModalities: ["text", "image"], modality: "text->text+image" });
    expect(painter.topProvider).toEqual({ contextLength: null, maxCompletionTokens: null, isModerated: false });
    await expect(rig.sdk.models.get({ author: "acme", slug: "missing" })).rejects.toMatchObject({ statusCode: 404 });
  });

  test("models.count counts the catalog, and the models that produce a modality", async () => {
    const { data } = (await allModels())[0]!;
    expect((await rig.sdk.models.count()).data.count).toBe(data.length);
    const images = data.filter((m) => m.architecture.outputModalities.includes("image")).map((m) => m.id);
    expect(images).toContain("acme/painter");
    expect((await rig.sdk.models.count({ outputModalities: "image" })).data.count).toBe(images.length);
  });
});

describe("endpoints and providers", () => {
  test("endpoints.list: one entry per provider with its limits, prices and parameters", async () => {
    const { data } = await rig.sdk.endpoints.list({ author: "shared", slug: "m" });
    expect(unknownVariants(data)).toEqual([]);
    expect(data).toMatchObject({ id: "shared/m", architecture: { modality: "text->text", tokenizer: null, instructType: null } });
    const [oai, ant] = data.endpoints;
    expect(oai).toMatchObject({ providerName: "p-openai", tag: "p-openai", contextLength: 16_000, maxCompletionTokens: 2000, quantization: null, pricing: { prompt: "0.000003", completion: "0.000004" } });
    expect(ant).toMatchObject({ providerName: "p-anthropic", tag: "p-anthropic/fp8", contextLength: 100_000, maxCompletionTokens: 4096, quantization: "fp8" });
    expect(oai!.supportedParameters).toContain("seed");
    expect(ant!.supportedParameters).not.toContain("seed");
    expect(ant!.supportedParameters).toEqual(expect.arrayContaining(["tools", "tool_choice", "temperature", "top_k", "stop", "reasoning"]));
    expect(ant!.supportsToolChoice).toEqual({ auto: true, none: true, required: true, function: true });
  });

  test("latency and throughput are this process's measurements: null before any call, percentiles after", async () => {
    const latency = async () => (await rig.sdk.endpoints.list({ author: "simulator", slug: "large" })).data.endpoints[0]!;
    expect((await latency()).latencyLast30m).toBeNull();
    await chatOnce(rig.sdk, { model: "simulator/large", messages: [{ role: "user", content: "measure me [sim latency=5]" }] });
    const measured = await latency();
    expect(measured.latencyLast30m!.p50).toBeGreaterThan(0);
    expect(measured.throughputLast30m!.p50).toBeGreaterThan(0);
  });

  test("providers.list: the configured providers, and nothing of their URLs or keys", async () => {
    const { data } = await rig.sdk.providers.list();
    expect(data.map((p) => p.slug).sort()).toEqual(["p-anthropic", "p-openai", "simulator"]);
    expect(data.find((p) => p.slug === "p-openai")).toMatchObject({ name: "p-openai", privacyPolicyUrl: null });
    expect(JSON.stringify(rig.bodies.at(-1))).not.toContain("127.0.0.1");
  });
});
