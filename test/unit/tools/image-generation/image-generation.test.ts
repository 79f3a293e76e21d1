/**
 * service:image_generation: the request entry's parameters (every boundary a 400 naming the field), the
 * declaration checks on the model, the model's arguments, and what a call hands back.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { ImageGenerationRequest } from "../../../../core/images/types.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import type { ToolRunContext } from "../../../../core/registry/tool.ts";
import type { CatalogView, EndpointView, ModelView } from "../../../../core/routing/catalog-view.ts";
import { declaredTools } from "../../../../core/tools/declared.ts";
import imageGeneration from "../../../../tools/image-generation/index.ts";
import { canonicalRequest, fakeHelpers } from "../../pipeline/helpers.ts";

function endpoint(model: string, outputs?: Array<"text" | "image">): EndpointView {
  const view: EndpointView = { model, provider: "p", contextLength: undefined, maxOutputTokens: undefined, pricing: { prompt: 0, completion: 0, image: 0.04 }, latency: undefined, throughput: undefined, health: "closed" };
  return outputs ? { ...view, outputModalities: outputs } : view;
}

function catalogOf(models: ModelView[]): CatalogView {
  return { models: () => models, model: (id) => models.find((m) => m.id === id) };
}

const WITH_IMAGES = catalogOf([
  { id: "acme/chat", endpoints: [endpoint("acme/chat", ["text"])] },
  { id: "acme/legacy", endpoints: [endpoint("acme/legacy")] },
  { id: "acme/painter", endpoints: [endpoint("acme/painter", ["image"])] },
]);
const TEXT_ONLY = catalogOf([{ id: "acme/chat", endpoints: [endpoint("acme/chat", ["text"])] }]);

function declare(parameters: Record<string, unknown> | undefined, catalog = WITH_IMAGES, settings: Record<string, unknown> = {}) {
  const registry = new Registry();
  registry.register(imageGeneration, "test");
  const tool = { kind: "server" as const, type: "service:image_generation", ...(parameters ? { parameters } : {}) };
  const request = canonicalRequest({ tools: [{ kind: "function", name: "f" }, tool] });
  return declaredTools(request, { registry, settings: { image_generation: settings }, catalog, helpers: fakeHelpers() });
}

function refusal(fn: () => unknown): { message: string; field: unknown } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return { message: (error as GatewayError).message, field: (error as GatewayError).metadata?.field };
  }
  throw new Error("expected a 400");
}

describe("parameters", () => {
  test("every documented value is accepted", () => {
    for (const size of ["auto", "1024x1024", "1536x1024", "1024x1536", "256x256", "512x512"]) expect(declare({ size })).toBeDefined();
    for (const aspect_ratio of ["1:1", "16:9", "9:16", "21:9"]) expect(declare({ aspect_ratio })).toBeDefined();
    for (const quality of ["auto", "low", "medium", "high"]) expect(declare({ quality })).toBeDefined();
    for (const background of ["auto", "transparent", "opaque"]) expect(declare({ background })).toBeDefined();
    for (const output_format of ["png", "jpeg", "webp"]) expect(declare({ output_format })).toBeDefined();
    for (const output_compression of [0, 100]) expect(declare({ output_compression })).toBeDefined();
    for (const moderation of ["auto", "low"]) expect(declare({ moderation })).toBeDefined();
    expect(declare(undefined)?.list.map((t) => t.modelName)).toEqual(["image_generation"]);
  });

  test("values outside the lists and unknown keys are 400s naming the field", () => {
    expect(refusal(() => declare({ size: "2048x2048" })).message).toStartWith("tools[1].parameters.size");
    expect(refusal(() => declare({ aspect_ratio: "7:5" })).message).toStartWith("tools[1].parameters.aspect_ratio");
    expect(refusal(() => declare({ quality: "ultra" })).message).toStartWith("tools[1].parameters.quality");
    expect(refusal(() => declare({ background: "white" })).message).toStartWith("tools[1].parameters.background");
    expect(refusal(() => declare({ output_format: "gif" })).message).toStartWith("tools[1].parameters.output_format");
    expect(refusal(() => declare({ output_compression: -1 })).message).toStartWith("tools[1].parameters.output_compression");
    expect(refusal(() => declare({ output_compression: 101 })).message).toStartWith("tools[1].parameters.output_compression");
    expect(refusal(() => declare({ output_compression: 50.5 })).message).toStartWith("tools[1].parameters.output_compression");
    expect(refusal(() => declare({ moderation: "high" })).message).toStartWith("tools[1].parameters.moderation");
    expect(refusal(() => declare({ model: "" })).message).toStartWith("tools[1].parameters.model");
    expect(refusal(() => declare({ n: 2 })).message).toBe('tools[1].parameters.n: unknown parameter "n"');
  });
});

describe("declare: the model", () => {
  test("a named image model is accepted", () => {
    expect(declare({ model: "acme/painter" })).toBeDefined();
  });

  test("an unknown model, or one that does not output images (or does not say), is a 400 naming <field>.model", () => {
    expect(refusal(() => declare({ model: "acme/nope" }))).toEqual({ message: 'tools[1].parameters.model: unknown model "acme/nope"', field: "tools[1].parameters.model" });
    expect(refusal(() => declare({ model: "acme/chat" })).message).toContain('model "acme/chat" does not make images');
    expect(refusal(() => declare({ model: "acme/legacy" })).message).toContain('model "acme/legacy" does not make images');
  });

  test("none named: some image model must exist (or the operator's default must be one)", () => {
    expect(declare({})).toBeDefined();
    expect(refusal(() => declare({}, TEXT_ONLY))).toEqual({ message: "tools[1].parameters.model: no image model is configured", field: "tools[1].parameters.model" });
    expect(declare({}, WITH_IMAGES, { model: "acme/painter" })).toBeDefined();
    expect(refusal(() => declare({}, WITH_IMAGES, { model: "acme/chat" })).message).toContain('model "acme/chat" does not make images');
  });
});

describe("run", () => {
  function ctx(parameters: Record<string, unknown>, config: Record<string, unknown> = {}) {
    const asked: ImageGenerationRequest[] = [];
    const helpers = fakeHelpers();
    const context: ToolRunContext = {
      parameters,
      config,
      helpers,
      signal: new AbortController().signal,
      fetch: helpers.fetch,
      upstreamFetch: helpers.fetch,
      catalog: WITH_IMAGES,
      tools: [],
      reveal: () => {},
      previousUses: 0,
      charge: async () => {},
      container: async () => {
        throw new Error("no containers in this test");
      },
      generateImage: async (request) => {
        asked.push(request);
        return { url: "data:image/png;base64,AAAA", mediaType: "image/png", revisedPrompt: "A fox, revised", model: "acme/painter", provider: "p", cost: 0.04 };
      },
    } as ToolRunContext;
    return { context, asked };
  }

  test("passes the prompt and every parameter on, and returns {status, imageUrl, prompt, revisedPrompt}", async () => {
    const { context, asked } = ctx({ model: "acme/painter", size: "1536x1024", aspect_ratio: "3:2", quality: "low", background: "transparent", output_format: "webp", output_compression: 40, moderation: "low" });
    expect(await imageGeneration.run({ prompt: "a fox" }, context)).toEqual({ status: "ok", imageUrl: "data:image/png;base64,AAAA", prompt: "a fox", revisedPrompt: "A fox, revised" });
    expect(asked).toEqual([{ prompt: "a fox", model: "acme/painter", size: "1536x1024", aspectRatio: "3:2", quality: "low", background: "transparent", outputFormat: "webp", outputCompression: 40, moderation: "low" }]);
  });

  test("the operator's default model applies when the request names none", async () => {
    const { context, asked } = ctx({}, { model: "acme/painter" });
    await imageGeneration.run({ prompt: "a fox" }, context);
    expect(asked).toEqual([{ prompt: "a fox", model: "acme/painter" }]);
  });

  test("a missing, empty or extra argument is an error result, and nothing is generated", async () => {
    const { context, asked } = ctx({});
    for (const args of [{}, { prompt: "" }, { prompt: 3 }, { prompt: "a fox", size: "1024x1024" }]) {
      await expect(imageGeneration.run(args, context)).rejects.toThrow(/invalid arguments/);
    }
    expect(asked).toEqual([]);
  });

  test("the model sees only `prompt` in the arguments schema", () => {
    expect(Object.keys((imageGeneration.argumentsSchema as { properties: object }).properties)).toEqual(["prompt"]);
    expect((imageGeneration.argumentsSchema as { required: string[] }).required).toEqual(["prompt"]);
  });
});
