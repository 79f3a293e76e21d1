/**
 * The adapter end to end over a loopback Bun.serve fake upstream that records what it received: the URL, headers
 * and body sent, the non-streaming and streaming translations, upstream errors, and abort.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { isGatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import { moduleBrand } from "../../../../core/registry/define.ts";
import adapter from "../../../../providers/openai-responses/index.ts";
import { decodeResponses } from "../../../../core/formats/responses/decode.ts";
import { canonicalRequest, providerCall, target } from "../helpers.ts";
import { CALL_ID, IDS, RESULT_TOOLS, sse, STREAM_TOOLS } from "./fixtures.ts";

interface Recorded {
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
}

let server: Server<undefined>;
const received: Recorded[] = [];
/** What the next request is answered with. */
let reply: () => Response = () => Response.json(RESULT_TOOLS);

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, headers: request.headers, body: (await request.json()) as Record<string, unknown> });
      return reply();
    },
  });
});

afterAll(() => {
  void server.stop(true);
});

function upstream() {
  return target({ baseUrl: `http://127.0.0.1:${server.port}/v1/`, apiKey: "sk-upstream", upstreamModel: "gpt-5-2025-08-07", headers: { "openai-organization": "org-1" } });
}

function sseResponse(frames: string[], delayMs = 0): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const frame of frames) {
        if (delayMs > 0) await Bun.sleep(delayMs);
        controller.enqueue(encoder.encode(frame));
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

describe("openai-responses adapter over HTTP", () => {
  test("is a branded provider module with the right id", () => {
    expect(adapter.id).toBe("openai-responses");
    expect(moduleBrand(adapter)).toEqual({ kind: "provider", apiVersion: 1 });
  });

  test("generate: POST {baseUrl}/responses with Bearer key and target headers; the recorded body; the translation", async () => {
    reply = () => Response.json(RESULT_TOOLS);
    const request = decodeResponses(
      {
        model: "openai/gpt-5",
        instructions: "Be brief.",
        input: [{ role: "user", content: "Weather in Paris?" }],
        tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }],
        max_output_tokens: 500,
        reasoning: { effort: "low", summary: "auto" },
      },
      new Headers(),
    );
    const echoed: unknown[] = [];
    const response = await adapter.generate(providerCall({ request, target: upstream(), onUpstreamBody: (body) => echoed.push(body) }));
    const last = received.at(-1);
    expect(last?.path).toBe("/v1/responses");
    expect(last?.headers.get("authorization")).toBe("Bearer sk-upstream");
    expect(last?.headers.get("openai-organization")).toBe("org-1");
    expect(last?.body).toEqual({
      model: "gpt-5-2025-08-07",
      instructions: "Be brief.",
      input: [{ role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }] }],
      store: false,
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }],
      max_output_tokens: 500,
      reasoning: { effort: "low", summary: "auto" },
      include: ["reasoning.encrypted_content"],
    });
    expect(echoed).toEqual([last?.body]);
    expect(response.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool-call"]);
    expect(response.parts[2]).toEqual({ type: "tool-call", id: CALL_ID, name: "get_weather", arguments: '{"city":"Paris"}', itemId: IDS.CALL_ITEM_ID });
    expect(response.finish.reason).toBe("tool_calls");
  });

  test("stream: stream:true is sent, events arrive incrementally and collect into the result", async () => {
    reply = () => sseResponse(sse(STREAM_TOOLS), 1);
    const events = await adapter.stream(providerCall({ request: canonicalRequest({ stream: true }), target: upstream() }));
    expect(received.at(-1)?.body.stream).toBe(true);
    const response = await collect(events);
    expect(response.id).toBe(IDS.RESPONSE_ID);
    expect(response.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool-call"]);
    expect(response.usage.input.cacheRead).toBe(256);
    expect(response.error).toBeUndefined();
  });

  test("a non-2xx reply is thrown as a mapped GatewayError before any stream is returned", async () => {
    reply = () => Response.json({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }, { status: 429, headers: { "retry-after": "3" } });
    let thrown: unknown;
    try {
      await adapter.stream(providerCall({ request: canonicalRequest({ stream: true }), target: upstream() }));
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown) && { type: thrown.type, status: thrown.status, retryAfter: thrown.retryAfter }).toEqual({ type: "rate_limit_exceeded", status: 429, retryAfter: 3 });
    reply = () => Response.json({ error: { message: "Invalid 'input[0]'", type: "invalid_request_error", code: null } }, { status: 400 });
    await expect(adapter.generate(providerCall({ target: upstream() }))).rejects.toMatchObject({ type: "invalid_request", status: 400 });
  });

  test("the call signal aborts the upstream request: reading stops at once with the abort reason", async () => {
    reply = () => sseResponse(sse(STREAM_TOOLS), 200);
    const controller = new AbortController();
    const events = await adapter.stream(providerCall({ request: canonicalRequest({ stream: true }), target: upstream(), signal: controller.signal }));
    const iterator = events[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "start" });
    const started = Date.now();
    const reason = new DOMException("client went away", "AbortError");
    const rest = (async () => {
      for (;;) if ((await iterator.next()).done) return "ended";
    })();
    controller.abort(reason);
    await expect(rest).rejects.toBe(reason);
    // The fake upstream would need ~5 s to finish; an abort that did not reach fetch would wait for it.
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
