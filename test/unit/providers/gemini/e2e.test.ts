import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import gemini from "../../../../providers/gemini/index.ts";
import { drain, providerCall, target } from "../helpers.ts";
import { CALLS_RESPONSE, googleError, sse, TEXT_STREAM_CHUNKS } from "./fixtures.ts";

interface Received {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A loopback fake of the Gemini API that records what it received. */
let server: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
let mode: "ok" | "quota" = "ok";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      received.push({ url: url.pathname + url.search, headers: Object.fromEntries(req.headers), body: (await req.json()) as Record<string, unknown> });
      if (mode === "quota") return Response.json(googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded"), { status: 429, headers: { "retry-after": "7" } });
      if (url.pathname.endsWith(":streamGenerateContent")) return new Response(sse(TEXT_STREAM_CHUNKS), { headers: { "content-type": "text/event-stream" } });
      return Response.json(CALLS_RESPONSE);
    },
  });
});
afterAll(() => server.stop(true));

function call(stream: boolean) {
  const request = messagesFormat.decode(
    {
      model: "google/gemini-2.5-flash",
      max_tokens: 512,
      stream,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris and Rome?" }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { location: { type: "string" } } } }],
    },
    new Headers(),
  );
  const bodies: unknown[] = [];
  const c = providerCall({
    request,
    target: target({ providerId: "gemini", baseUrl: `http://127.0.0.1:${server.port}/v1beta`, apiKey: "AIza-test", upstreamModel: "gemini-2.5-flash" }),
    onUpstreamBody: (b) => bodies.push(b),
  });
  return { c, bodies };
}

describe("gemini adapter over a loopback upstream", () => {
  test("generate: POST models/{model}:generateContent with x-goog-api-key; exact body recorded", async () => {
    mode = "ok";
    received.length = 0;
    const { c, bodies } = call(false);
    const response = await gemini.generate(c);
    expect(response.parts.map((p) => (p.type === "tool-call" ? p.id : p.type))).toEqual(["reasoning", "call_0", "call_1"]);
    const got = received[0] as Received;
    expect(got.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(got.headers["x-goog-api-key"]).toBe("AIza-test");
    expect(got.headers.authorization).toBeUndefined();
    expect(got.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Weather in Paris and Rome?" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { location: { type: "string" } } } }] }],
      generationConfig: { maxOutputTokens: 512 },
    });
    expect(bodies).toEqual([got.body]);
  });

  test("stream: :streamGenerateContent?alt=sse, events relayed as they arrive", async () => {
    mode = "ok";
    received.length = 0;
    const { c } = call(true);
    const list = await drain(await gemini.stream(c));
    expect((received[0] as Received).url).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(list.map((e) => e.type)).toEqual(["start", "usage", "reasoning-start", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-delta", "text-end", "usage", "finish"]);
  });

  test("a 429 is thrown before any stream is returned, with Retry-After", async () => {
    mode = "quota";
    const { c } = call(true);
    const failure = await gemini.stream(c).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ type: "rate_limit_exceeded", status: 429, retryable: true, retryAfter: 7 });
  });
});
