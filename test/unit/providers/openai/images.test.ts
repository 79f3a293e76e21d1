/**
 * The openai adapter's images: the Images API call (exact body, reply decoding, errors) and, with `image_api:
 * "chat"`, image output through chat completions; plus image output decoded from chat replies and streams. Every
 * upstream is a loopback fake that records what it received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import type { ImageCall, ImageRequest } from "../../../../core/images/types.ts";
import { collect } from "../../../../core/model/collect.ts";
import openai from "../../../../providers/openai/index.ts";
import { canonicalRequest, fakeHelpers, providerCall, target } from "../helpers.ts";

type Reply = { status?: number; json?: unknown; sse?: string[] };
let server: ReturnType<typeof Bun.serve>;
let base = "";
const received: Array<{ path: string; auth: string | null; body: Record<string, unknown> }> = [];
let reply: Reply = {};

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push({ path: new URL(req.url).pathname, auth: req.headers.get("authorization"), body: (await req.json()) as Record<string, unknown> });
      if (reply.sse) return new Response(reply.sse.map((data) => `data: ${data}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
      return Response.json(reply.json ?? {}, { status: reply.status ?? 200 });
    },
  });
  base = `http://127.0.0.1:${server.port}/v1`;
});
afterAll(() => server.stop(true));
beforeEach(() => {
  received.length = 0;
  reply = {};
});

const PNG_B64 = Buffer.from("not really a png").toString("base64");

function imageCall(request: ImageRequest, options: Record<string, unknown> = {}): ImageCall {
  return { request, target: target({ baseUrl: base, upstreamModel: "gpt-image-1", options }), signal: new AbortController().signal, helpers: fakeHelpers() };
}

describe("Images API (POST /images/generations)", () => {
  test("sends every parameter it was given, with n=1, the upstream model and bearer auth", async () => {
    reply = { json: { created: 1, data: [{ b64_json: PNG_B64, revised_prompt: "A red fox, watercolour" }], output_format: "webp" } };
    let echoed: unknown;
    const call = imageCall({ prompt: "a fox", size: "1024x1536", quality: "high", background: "opaque", outputFormat: "webp", outputCompression: 80, moderation: "low" });
    call.onUpstreamBody = (body) => (echoed = body);
    const images = await openai.images!(call);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe("/v1/images/generations");
    expect(received[0]!.auth).toBe("Bearer sk-test");
    expect(received[0]!.body).toEqual({ model: "gpt-image-1", prompt: "a fox", n: 1, size: "1024x1536", quality: "high", background: "opaque", output_format: "webp", output_compression: 80, moderation: "low" });
    expect(echoed).toEqual(received[0]!.body);
    expect(images).toEqual([{ url: `data:image/webp;base64,${PNG_B64}`, mediaType: "image/webp", revisedPrompt: "A red fox, watercolour" }]);
  });

  test("sends only the prompt when nothing else is set; a URL reply stays a URL; png is the default type", async () => {
    reply = { json: { data: [{ url: "https://img.example/1.png" }, { b64_json: PNG_B64 }] } };
    const images = await openai.images!(imageCall({ prompt: "a fox" }));
    expect(received[0]!.body).toEqual({ model: "gpt-image-1", prompt: "a fox", n: 1 });
    expect(images).toEqual([{ url: "https://img.example/1.png" }, { url: `data:image/png;base64,${PNG_B64}`, mediaType: "image/png" }]);
  });

  test("an aspect ratio without a size picks the size of its orientation", async () => {
    reply = { json: { data: [{ b64_json: PNG_B64 }] } };
    for (const [ratio, size] of [["16:9", "1536x1024"], ["9:16", "1024x1536"], ["1:1", "1024x1024"]] as const) {
      await openai.images!(imageCall({ prompt: "p", aspectRatio: ratio }));
      expect(received.at(-1)!.body.size).toBe(size);
    }
    await openai.images!(imageCall({ prompt: "p", aspectRatio: "16:9", size: "512x512" }));
    expect(received.at(-1)!.body.size).toBe("512x512");
  });

  test("an upstream error is a mapped GatewayError (400 not retryable, 503 retryable)", async () => {
    reply = { status: 400, json: { error: { message: "Your request was rejected by the safety system", type: "invalid_request_error" } } };
    const bad = await openai.images!(imageCall({ prompt: "p" })).catch((e: unknown) => e);
    expect(isGatewayError(bad) && bad.status === 400 && !bad.retryable).toBe(true);
    reply = { status: 503, json: { error: { message: "overloaded" } } };
    const busy = await openai.images!(imageCall({ prompt: "p" })).catch((e: unknown) => e);
    expect(isGatewayError(busy) && busy.retryable).toBe(true);
  });
});

describe('image_api: "chat" (image output of chat completions)', () => {
  test("asks chat completions with modalities and image_config, and reads message.images", async () => {
    const url = `data:image/png;base64,${PNG_B64}`;
    reply = { json: { id: "c1", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Here it is.", images: [{ type: "image_url", image_url: { url } }] } }] } };
    const images = await openai.images!(imageCall({ prompt: "a fox", size: "1536x1024", quality: "high" }, { image_api: "chat" }));
    expect(received[0]!.path).toBe("/v1/chat/completions");
    expect(received[0]!.body).toMatchObject({ model: "gpt-image-1", messages: [{ role: "user", content: "a fox" }], modalities: ["image", "text"], image_config: { aspect_ratio: "3:2" } });
    expect(received[0]!.body.quality).toBeUndefined();
    expect(images).toEqual([{ url, mediaType: "image/png" }]);
  });

  test("a chat reply without an image is a retryable 502", async () => {
    reply = { json: { id: "c1", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "I cannot draw." } }] } };
    const failure = await openai.images!(imageCall({ prompt: "a fox" }, { image_api: "chat" })).catch((e: unknown) => e);
    expect(isGatewayError(failure) && failure.status === 502 && failure.retryable).toBe(true);
  });
});

describe("image output in chat replies", () => {
  const url = "data:image/png;base64,AAAA";

  test("a request's modalities and image_config reach the upstream, from the Responses format too", async () => {
    reply = { json: { id: "c1", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "ok" } }] } };
    const request = canonicalRequest({ format: "responses", modalities: ["image", "text"], passthrough: { image_config: { aspect_ratio: "16:9" } } });
    await openai.generate(providerCall({ request, target: target({ baseUrl: base }) }));
    expect(received[0]!.body).toMatchObject({ modalities: ["image", "text"], image_config: { aspect_ratio: "16:9" } });
    expect(request.warnings.filter((w) => w.field === "image_config")).toEqual([]);
  });

  test("message.images become image parts after the text", async () => {
    reply = { json: { id: "c1", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "A fox.", images: [{ type: "image_url", image_url: { url } }] } }] } };
    const response = await openai.generate(providerCall({ request: canonicalRequest({ modalities: ["image", "text"] }), target: target({ baseUrl: base }) }));
    expect(response.parts).toEqual([{ type: "text", text: "A fox." }, { type: "image", url, mediaType: "image/png" }]);
  });

  test("delta.images in a stream become image events; collected, the same parts", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => JSON.stringify({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] });
    reply = { sse: [chunk({ role: "assistant", content: "A " }), chunk({ content: "fox." }), chunk({ images: [{ type: "image_url", image_url: { url }, index: 0 }] }), chunk({}, "stop"), "[DONE]"] };
    const events = await openai.stream(providerCall({ request: canonicalRequest({ modalities: ["image", "text"], stream: true }), target: target({ baseUrl: base }) }));
    const response = await collect(events);
    expect(response.parts).toEqual([{ type: "text", text: "A fox." }, { type: "image", url, mediaType: "image/png" }]);
  });
});
