/**
 * Images through HTTP with the official client: `service:image_generation` run by the agent loop (the image made by
 * the built-in simulator's image model, billed at its per-image price, the model told only that it was delivered),
 * and image output asked of a chat or Responses request directly (`modalities: ["image", "text"]`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { SIMULATOR_IMAGE_PRICE } from "../../../core/config/simulator-default.ts";
import { drawPicture } from "../../../providers/simulator/picture.ts";
import { ADMIN_KEY } from "../../support/gateway.ts";
import { decodePng, pngOfDataUrl } from "../../support/png.ts";
import { COMPLETION_TOKENS, PROMPT_TOKENS, type Script } from "../../support/scripted-model.ts";
import { MODEL, PRICING, messagesOf, startAgentGateway, type AgentGateway } from "./setup.ts";

type Json = Record<string, any>;

const TURN_COST = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;
const IMAGE_TOOL = { type: "service:image_generation", parameters: { size: "1536x1024" } };

/** Turn 1 draws `prompt`; the turn after the result answers. */
const drawThenAnswer = (prompt: string): Script => (body) =>
  (body.messages as Array<{ role: string }>).at(-1)?.role === "tool" ? { text: "Here is your picture." } : { calls: [{ name: "image_generation", args: { prompt } }] };

let agent: AgentGateway;
let client: OpenAI;

beforeAll(async () => {
  agent = await startAgentGateway(drawThenAnswer("a red fox"), { simulator: true });
  client = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
  agent.upstream.script = drawThenAnswer("a red fox");
});

const post = async (path: string, json: unknown, key?: string) => {
  const response = await agent.gw.request(path, key === undefined ? { method: "POST", json } : { method: "POST", json, key });
  return { status: response.status, body: (await response.json()) as Json };
};

describe("service:image_generation", () => {
  test("Responses: the call's item carries the simulator's PNG, billed at exactly the per-image price", async () => {
    const response = (await client.responses.create({ model: MODEL, input: "Draw me a fox", tools: [IMAGE_TOOL as never] })) as unknown as Json;
    const items = response.output as Json[];
    expect(items.map((item) => item.type)).toEqual(["service:image_generation", "message"]);
    const item = items[0]!;
    expect(item).toMatchObject({ status: "completed", prompt: "a red fox", call_id: expect.any(String) });
    // The image is exactly the simulator's drawing of the prompt, in the requested shape (3:2 → 64x43).
    const png = pngOfDataUrl(item.imageUrl);
    expect(Buffer.from(png).equals(Buffer.from(drawPicture({ prompt: "a red fox", size: "1536x1024" })))).toBe(true);
    expect(decodePng(png)).toMatchObject({ width: 64, height: 43 });
    expect(response.output_text).toBe("Here is your picture.");
    // Two model turns plus one image.
    expect(response.usage.cost).toBeCloseTo(2 * TURN_COST + SIMULATOR_IMAGE_PRICE, 10);
  });

  test("the model is told the image was delivered, without its bytes", async () => {
    await client.responses.create({ model: MODEL, input: "Draw me a fox", tools: [IMAGE_TOOL as never] });
    const result = messagesOf(agent.upstream, 1).at(-1)!;
    expect(result.role).toBe("tool");
    const seen = JSON.parse(String(result.content)) as Json;
    expect(seen).toEqual({ status: "ok", imageUrl: expect.stringMatching(/^\[image\/png, \d+ bytes: delivered to the user, not shown to you\]$/), prompt: "a red fox" });
    expect(String(result.content)).not.toContain("base64");
  });

  test("streamed: the item arrives whole in output_item.done, before the answer", async () => {
    const stream = await client.responses.create({ model: MODEL, input: "Draw me a fox", tools: [IMAGE_TOOL as never], stream: true });
    const done: Json[] = [];
    let completed: Json | undefined;
    for await (const event of stream) {
      const e = event as unknown as Json;
      if (e.type === "response.output_item.done") done.push(e.item);
      if (e.type === "response.completed") completed = e.response;
    }
    expect(done.map((item) => item.type)).toEqual(["service:image_generation", "message"]);
    expect(done[0]!.imageUrl).toStartWith("data:image/png;base64,");
    expect(completed!.usage.cost).toBeCloseTo(2 * TURN_COST + SIMULATOR_IMAGE_PRICE, 10);
  });

  test("chat: the call is listed in server_tool_calls and billed the same", async () => {
    const completion = (await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Draw me a fox" }], tools: [IMAGE_TOOL as never] })) as unknown as Json;
    const message = completion.choices[0].message as Json;
    expect(message.content).toBe("Here is your picture.");
    expect(message.server_tool_calls).toHaveLength(1);
    expect(JSON.stringify(message.server_tool_calls[0])).toContain("data:image/png;base64,");
    expect(completion.usage.cost).toBeCloseTo(2 * TURN_COST + SIMULATOR_IMAGE_PRICE, 10);
  });

  test("a failed generation is an error result for the model and costs nothing", async () => {
    agent.upstream.script = drawThenAnswer("a fox [sim status=503]");
    const response = (await client.responses.create({ model: MODEL, input: "Draw me a fox", tools: [IMAGE_TOOL as never] })) as unknown as Json;
    const item = (response.output as Json[])[0]!;
    expect(item).toMatchObject({ type: "service:image_generation", status: "failed", prompt: "a fox [sim status=503]" });
    expect(item.error).toEqual(expect.any(String));
    expect(item.imageUrl).toBeUndefined();
    expect(JSON.parse(String(messagesOf(agent.upstream, 1).at(-1)!.content))).toEqual({ error: item.error });
    expect(response.usage.cost).toBeCloseTo(2 * TURN_COST, 10);
  });

  test("a key whose credit limit cannot cover the image gets an error result, not an image", async () => {
    const created = (await (await agent.gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "image budget", limit: 0.015 } })).json()) as Json;
    const { status, body } = await post("/responses", { model: MODEL, input: "Draw me a fox", max_output_tokens: 100, tools: [IMAGE_TOOL] }, created.key);
    expect(status).toBe(200);
    const item = (body.output as Json[])[0]!;
    expect(item).toMatchObject({ type: "service:image_generation", status: "failed" });
    expect(item.error).toContain("Insufficient credits");
    expect(body.usage.cost).toBeCloseTo(2 * TURN_COST, 10);
  });

  test("declaring it with a model that makes no images, or an unknown one, is a 400 naming the field", async () => {
    const text = await post("/responses", { model: MODEL, input: "x", tools: [{ type: "service:image_generation", parameters: { model: "simulator/small" } }] });
    expect(text.status).toBe(400);
    expect(text.body.error.message).toContain("tools[0].parameters.model");
    expect(text.body.error.message).toContain("does not make images");
    const unknown = await post("/chat/completions", { model: MODEL, messages: [{ role: "user", content: "x" }], tools: [{ type: "service:image_generation", parameters: { model: "acme/none" } }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('unknown model "acme/none"');
    expect(agent.upstream.bodies).toHaveLength(0);
  });
});

describe("image output asked directly (modalities)", () => {
  const IMAGE_MODEL = "simulator/image";

  test("chat: message.images holds the PNG of the prompt, billed per image on top of the tokens", async () => {
    const completion = (await client.chat.completions.create({
      model: IMAGE_MODEL,
      messages: [{ role: "user", content: "a lighthouse at dusk" }],
      modalities: ["image", "text"] as never,
      image_config: { aspect_ratio: "16:9" },
    } as never)) as unknown as Json;
    const message = completion.choices[0].message as Json;
    expect(message.content).toStartWith("Simulated reply:");
    expect(message.images).toHaveLength(1);
    expect(message.images[0].type).toBe("image_url");
    const png = pngOfDataUrl(message.images[0].image_url.url);
    expect(Buffer.from(png).equals(Buffer.from(drawPicture({ prompt: "a lighthouse at dusk", aspectRatio: "16:9" })))).toBe(true);
    expect(decodePng(png)).toMatchObject({ width: 64, height: 36 });
    const usage = completion.usage as Json;
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000001 + usage.completion_tokens * 0.0000004 + SIMULATOR_IMAGE_PRICE, 10);
  });

  test("chat streamed: the image arrives in delta.images", async () => {
    const stream = await client.chat.completions.create({ model: IMAGE_MODEL, messages: [{ role: "user", content: "a lighthouse" }], modalities: ["image", "text"] as never, stream: true, stream_options: { include_usage: true } });
    const images: Json[] = [];
    let cost: number | undefined;
    for await (const chunk of stream) {
      const delta = (chunk as unknown as Json).choices[0]?.delta as Json | undefined;
      if (delta?.images) images.push(...delta.images);
      if ((chunk as unknown as Json).usage) cost = (chunk as unknown as Json).usage.cost;
    }
    expect(images).toEqual([{ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) }, index: 0 }]);
    expect(cost).toBeGreaterThan(SIMULATOR_IMAGE_PRICE);
  });

  test("without image in modalities the image model answers text only", async () => {
    const completion = (await client.chat.completions.create({ model: IMAGE_MODEL, messages: [{ role: "user", content: "hello" }] })) as unknown as Json;
    expect(completion.choices[0].message.images).toBeUndefined();
    expect(completion.usage.cost).toBeLessThan(0.001);
  });

  test("Responses: an image_generation_call item with the base64, and its stream events", async () => {
    const response = (await client.responses.create({ model: IMAGE_MODEL, input: "a lighthouse", modalities: ["image", "text"] } as never)) as unknown as Json;
    const items = response.output as Json[];
    expect(items.map((item) => item.type)).toEqual(["message", "image_generation_call"]);
    expect(items[1]).toMatchObject({ status: "completed", id: expect.stringMatching(/^ig_gw_/) });
    expect(Buffer.from(items[1]!.result, "base64").equals(Buffer.from(drawPicture({ prompt: "a lighthouse" })))).toBe(true);

    const stream = await client.responses.create({ model: IMAGE_MODEL, input: "a lighthouse", modalities: ["image", "text"], stream: true } as never);
    const types: string[] = [];
    let completed: Json | undefined;
    for await (const event of stream as unknown as AsyncIterable<Json>) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    const at = types.indexOf("response.image_generation_call.in_progress");
    expect(types.slice(at - 1, at + 4)).toEqual([
      "response.output_item.added",
      "response.image_generation_call.in_progress",
      "response.image_generation_call.generating",
      "response.image_generation_call.completed",
      "response.output_item.done",
    ]);
    expect(completed!.output).toEqual(response.output.map((item: Json) => ({ ...item, id: expect.any(String) })));
  });

  test("a model whose config says it outputs only text is not asked for images: 404 naming the constraint", async () => {
    const { status, body } = await post("/chat/completions", { model: "simulator/small", messages: [{ role: "user", content: "x" }], modalities: ["image", "text"] });
    expect(status).toBe(404);
    expect(body.error.metadata.availability).toMatchObject({ code: "constraint_filtered", excluded_by: ["modalities"], constraint: { field: "modalities" } });
    expect(body.error.metadata.availability.constraint.detail).toContain("does not output images");
  });

  test("GET /models shows what each model outputs and the per-image price", async () => {
    const models = ((await (await fetch(`${agent.gw.baseUrl}/models`)).json()) as { data: Json[] }).data;
    const image = models.find((m) => m.id === IMAGE_MODEL)!;
    expect(image.output_modalities).toEqual(["text", "image"]);
    expect(image.pricing.image).toBe(String(SIMULATOR_IMAGE_PRICE));
    expect(models.find((m) => m.id === "simulator/small")!.output_modalities).toEqual(["text"]);
    expect(models.find((m) => m.id === MODEL)!.output_modalities).toBeNull();
  });
});
