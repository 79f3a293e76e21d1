/**
 * Image calls are attempts of the request, as the model turn's are (core/images/generate.ts): through HTTP, the
 * `service:image_generation` tool's model is served by two loopback Images API upstreams. One that hangs is cut at
 * the attempt time-out and the next endpoint makes the image; both calls show in `service_metadata.attempts`; a
 * failing endpoint counts against its circuit breaker, so once it is open the next image goes to the healthy one
 * first. The fake Images API's answer is checked with the official `openai` client first.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { COMPLETION_TOKENS, PROMPT_TOKENS, startScriptedModel, type Script, type ScriptedModel } from "../../support/scripted-model.ts";
import { MODEL, PRICING } from "../agent/setup.ts";

type Json = Record<string, any>;
type Behaviour = "answer" | "hang" | "fail";

/** A loopback `POST /images/generations`: answers one PNG, hangs until the caller aborts, or fails with a 503. */
function imagesUpstream(name: string) {
  const upstream = {
    behaviour: "answer" as Behaviour,
    requests: 0,
    server: Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        if (new URL(request.url).pathname !== "/images/generations") return new Response("not found", { status: 404 });
        upstream.requests++;
        await request.json();
        if (upstream.behaviour === "hang") return new Promise<Response>(() => {});
        if (upstream.behaviour === "fail") return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 });
        return Response.json({ created: 1_700_000_000, data: [{ b64_json: Buffer.from(`png of ${name}`).toString("base64") }] });
      },
    }),
  };
  return upstream;
}

const slow = imagesUpstream("slow");
const fast = imagesUpstream("fast");
const IMAGE_MODEL = "paint/img";
const IMAGE_TIMEOUT_MS = 300;
const imageProvider = (id: string, url: string) => ({
  id,
  adapter: "openai",
  base_url: url,
  api_key: "k",
  timeouts: { request_ms: IMAGE_TIMEOUT_MS },
  models: [{ id: IMAGE_MODEL, upstream_model: `img-${id}`, output_modalities: ["text", "image"] as Array<"text" | "image">, pricing: { prompt: 0, completion: 0, image: IMAGE_PRICE } }],
});
const IMAGE_TOOL = { type: "service:image_generation", parameters: { model: IMAGE_MODEL } };
const drawThenAnswer: Script = (body) =>
  (body.messages as Array<{ role: string }>).at(-1)?.role === "tool" ? { text: "Here it is." } : { calls: [{ name: "image_generation", args: { prompt: "a fox" } }] };

const IMAGE_PRICE = 0.01;
const TURN_COST = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;

let model: ScriptedModel;
let gw: TestGateway;

/** A fresh gateway (fresh breakers) per describe block. */
function gatewayPerBlock(): void {
  beforeAll(async () => {
    slow.behaviour = "answer";
    model = startScriptedModel(drawThenAnswer);
    gw = await startTestGateway({
      file: {
        providers: [
          { id: "acme", adapter: "openai", base_url: model.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING, context_length: 100000 }] },
          imageProvider("slow", slow.server.url.href.replace(/\/$/, "")),
          imageProvider("fast", fast.server.url.href.replace(/\/$/, "")),
        ],
        // One failure opens an image endpoint's breaker (the agent model never fails here).
        routing: { breaker: { failure_threshold: 1, failure_window_ms: 60_000, cooldown_ms: 60_000 } },
      },
    });
  });
  afterAll(async () => {
    await gw.close();
    model.stop();
  });
}

afterAll(() => {
  slow.server.stop(true);
  fast.server.stop(true);
});
beforeEach(() => {
  slow.requests = 0;
  fast.requests = 0;
});

const draw = async () => {
  const response = await gw.request("/responses", { method: "POST", headers: { "X-Service-Metadata": "enabled" }, json: { model: MODEL, input: "Draw a fox", tools: [IMAGE_TOOL] } });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
};
const imageAttempts = (body: Json) => (body.service_metadata.attempts as Json[]).filter((a) => a.model === IMAGE_MODEL).map((a) => [a.provider, a.status, a.error_type]);

test("the fake Images API answers as the official client reads it", async () => {
  const client = new OpenAI({ baseURL: fast.server.url.href, apiKey: "k", maxRetries: 0 });
  const made = await client.images.generate({ model: "img-fast", prompt: "a fox" });
  expect(made.data?.[0]?.b64_json).toBe(Buffer.from("png of fast").toString("base64"));
});

describe("a hanging image upstream", () => {
  gatewayPerBlock();

  test("is cut at the attempt time-out and the next endpoint makes the image; both calls are attempts", async () => {
    slow.behaviour = "hang";
    const body = await draw();
    const item = (body.output as Json[])[0]!;
    expect(item).toMatchObject({ type: "service:image_generation", status: "completed" });
    expect(item.imageUrl).toBe(`data:image/png;base64,${Buffer.from("png of fast").toString("base64")}`);
    expect([slow.requests, fast.requests]).toEqual([1, 1]);
    expect(imageAttempts(body)).toEqual([
      ["slow", 408, "timeout"],
      ["fast", 200, null],
    ]);
    // The timed-out call made no image: two model turns and the one image that was made are billed.
    expect(body.usage.cost).toBeCloseTo(2 * TURN_COST + IMAGE_PRICE, 10);
  });

  test("the time-out counts against its breaker: the next image goes to the healthy endpoint first", async () => {
    const body = await draw();
    expect([slow.requests, fast.requests]).toEqual([0, 1]);
    expect(imageAttempts(body)).toEqual([["fast", 200, null]]);
  });
});

describe("a failing image upstream", () => {
  gatewayPerBlock();

  test("its failure is an attempt of the request, and the next endpoint makes the image", async () => {
    slow.behaviour = "fail";
    const body = await draw();
    expect((body.output as Json[])[0]).toMatchObject({ type: "service:image_generation", status: "completed" });
    expect([slow.requests, fast.requests]).toEqual([1, 1]);
    expect(imageAttempts(body)).toEqual([
      ["slow", 502, "provider_unavailable"],
      ["fast", 200, null],
    ]);
  });

  test("it is recorded in the endpoint's health: once its breaker is open it is tried last", async () => {
    const body = await draw();
    expect([slow.requests, fast.requests]).toEqual([0, 1]);
    expect(imageAttempts(body)).toEqual([["fast", 200, null]]);
  });
});
