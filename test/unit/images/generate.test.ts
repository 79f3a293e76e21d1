/**
 * core/images/generate.ts: which endpoint makes the image, the per-image charge made before the call and taken back
 * when it fails, fallback to the next endpoint on a retryable failure, and the chat route for adapters without an
 * images API.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import { generateImage } from "../../../core/images/generate.ts";
import type { GeneratedImage, ImageCall } from "../../../core/images/types.ts";
import { defineProvider, type RegisteredProvider } from "../../../core/registry/define.ts";
import type { ModelConfig } from "../../../core/config/types.ts";
import { Catalog } from "../../../core/routing/catalog.ts";
import { endpointOf, modelConfig, providerConfig, response, testContext, testDeps } from "../pipeline/helpers.ts";

const PNG = "data:image/png;base64,AAAA";

function imageModel(id: string, image: number, outputs: ModelConfig["outputModalities"] = ["image"]): ModelConfig {
  return { ...modelConfig(id, { prompt: 0, completion: 0, image }), outputModalities: outputs };
}

/** An adapter with an images API that answers with `answer` (or throws it) and records each call. */
function imagesAdapter(answer: () => GeneratedImage[] | Error): RegisteredProvider & { calls: ImageCall[] } {
  const calls: ImageCall[] = [];
  const adapter = defineProvider({
    id: "fake-images",
    description: "test",
    generate: async () => response(),
    stream: async () => (async function* () {})(),
    images: async (call: ImageCall) => {
      calls.push(call);
      const out = answer();
      if (out instanceof Error) throw out;
      return out;
    },
  });
  return { ...adapter, calls };
}

function contextWith(...endpoints: Array<[ModelConfig, string, RegisteredProvider]>) {
  const catalog = new Catalog();
  for (const [model, provider, adapter] of endpoints) catalog.add(endpointOf(model, providerConfig(provider, [model]), adapter));
  return testContext({ deps: testDeps({ catalog }) });
}

const signal = () => new AbortController().signal;

describe("generateImage", () => {
  test("the named model's endpoint makes it; the per-image price is charged once", async () => {
    const adapter = imagesAdapter(() => [{ url: PNG, mediaType: "image/png", revisedPrompt: "r" }]);
    const ctx = contextWith([modelConfig("acme/chat"), "p0", adapter], [imageModel("acme/painter", 0.04), "p1", adapter]);
    const made = await generateImage(ctx, "service:image_generation", { prompt: "a fox", model: "acme/painter", size: "1024x1024" }, signal());
    expect(made).toEqual({ url: PNG, mediaType: "image/png", revisedPrompt: "r", model: "acme/painter", provider: "p1", cost: 0.04 });
    expect(adapter.calls.map((c) => [c.target.providerId, c.request])).toEqual([["p1", { prompt: "a fox", size: "1024x1024" }]]);
    expect(ctx.bill.charges).toEqual([{ amount: 0.04, description: "image generation (acme/painter)", source: "service:image_generation" }]);
  });

  test("no model named: the first image model of the catalog", async () => {
    const adapter = imagesAdapter(() => [{ url: PNG }]);
    const ctx = contextWith([modelConfig("acme/chat"), "p0", adapter], [imageModel("acme/second", 0.01), "p1", adapter], [imageModel("acme/third", 0.02), "p2", adapter]);
    expect((await generateImage(ctx, "t", { prompt: "x" }, signal())).model).toBe("acme/second");
  });

  test("no image model, or a model that makes none, is an error and charges nothing", async () => {
    const adapter = imagesAdapter(() => [{ url: PNG }]);
    const ctx = contextWith([modelConfig("acme/chat"), "p0", adapter]);
    await expect(generateImage(ctx, "t", { prompt: "x" }, signal())).rejects.toThrow("no image model is configured");
    await expect(generateImage(ctx, "t", { prompt: "x", model: "acme/chat" }, signal())).rejects.toThrow('model "acme/chat" cannot make images');
    expect(adapter.calls).toEqual([]);
    expect(ctx.bill.charges).toEqual([]);
  });

  test("a failed call takes its charge back; a non-retryable failure tries no other endpoint", async () => {
    const adapter = imagesAdapter(() => new GatewayError("content_policy_violation", "refused", { status: 400 }));
    const ctx = contextWith([imageModel("acme/painter", 0.04), "p1", adapter], [imageModel("acme/painter", 0.04), "p2", adapter]);
    await expect(generateImage(ctx, "t", { prompt: "x" }, signal())).rejects.toThrow("refused");
    expect(adapter.calls).toHaveLength(1);
    expect(ctx.bill.charges).toEqual([]);
  });

  test("a retryable failure moves to the next endpoint, which is charged at its own price", async () => {
    let n = 0;
    const adapter = imagesAdapter(() => (n++ === 0 ? new GatewayError("provider_unavailable", "down", { status: 503, retryable: true }) : [{ url: PNG }]));
    const ctx = contextWith([imageModel("acme/painter", 0.04), "p1", adapter], [imageModel("acme/painter", 0.05), "p2", adapter]);
    const made = await generateImage(ctx, "t", { prompt: "x" }, signal());
    expect([made.provider, made.cost]).toEqual(["p2", 0.05]);
    expect(ctx.bill.charges.map((c) => c.amount)).toEqual([0.05]);
  });

  test("an adapter without an images API is asked for image output through a chat turn", async () => {
    const calls: unknown[] = [];
    const chatOnly = defineProvider({
      id: "chat-only",
      description: "test",
      generate: async (call) => {
        calls.push({ modalities: call.request.modalities, passthrough: call.request.passthrough, text: call.request.messages[0]?.parts });
        return response({ parts: [{ type: "text", text: "here" }, { type: "image", url: PNG }] });
      },
      stream: async () => (async function* () {})(),
    });
    const ctx = contextWith([imageModel("acme/painter", 0.01, ["text", "image"]), "p1", chatOnly]);
    const made = await generateImage(ctx, "t", { prompt: "a fox", aspectRatio: "16:9", quality: "high" }, signal());
    expect(made).toMatchObject({ url: PNG, mediaType: "image/png", model: "acme/painter" });
    expect(calls).toEqual([{ modalities: ["image", "text"], passthrough: { image_config: { aspect_ratio: "16:9" } }, text: [{ type: "text", text: "a fox" }] }]);
  });

  test("a free image model charges nothing", async () => {
    const ctx = contextWith([imageModel("acme/free", 0), "p1", imagesAdapter(() => [{ url: PNG }])]);
    await generateImage(ctx, "t", { prompt: "x" }, signal());
    expect(ctx.bill.charges).toEqual([]);
  });
});
