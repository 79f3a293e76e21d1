import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { collect } from "../../../../core/model/collect.ts";
import anthropic from "../../../../providers/anthropic/index.ts";
import { drain, providerCall, target } from "../helpers.ts";
import { errorBody, TOOL_MESSAGE, TOOL_STREAM } from "./fixtures.ts";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A loopback fake of Anthropic's API that records what it received. */
let server: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
let mode: "ok" | "overloaded" | "hang" = "ok";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as Record<string, unknown>;
      received.push({ path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers), body });
      if (mode === "overloaded") return Response.json(errorBody("overloaded_error", "Overloaded"), { status: 529 });
      if (mode === "hang") return new Promise<Response>(() => undefined);
      if (body.stream === true) return new Response(TOOL_STREAM, { headers: { "content-type": "text/event-stream" } });
      return Response.json(TOOL_MESSAGE, { headers: { "request-id": "req_1" } });
    },
  });
});
afterAll(() => server.stop(true));

function call(stream: boolean, signal?: AbortSignal) {
  const request = messagesFormat.decode(
    { model: "anthropic/claude-sonnet-4.5", max_tokens: 2048, stream, messages: [{ role: "user", content: "Weather in SF?" }], tools: [{ name: "get_weather", input_schema: { type: "object" } }] },
    new Headers({ "anthropic-beta": "interleaved-thinking-2025-05-14" }),
  );
  const bodies: unknown[] = [];
  const c = providerCall({
    request,
    target: target({ providerId: "anthropic", baseUrl: `http://127.0.0.1:${server.port}/v1/`, apiKey: "sk-ant-test", upstreamModel: "claude-sonnet-4-5-20250929", headers: { "x-extra": "1" } }),
    onUpstreamBody: (b) => bodies.push(b),
    ...(signal ? { signal } : {}),
  });
  return { c, bodies };
}

describe("anthropic adapter over a loopback upstream", () => {
  test("generate: POST /v1/messages with Anthropic headers; the echoed body is what was sent", async () => {
    mode = "ok";
    received.length = 0;
    const { c, bodies } = call(false);
    const response = await anthropic.generate(c);
    expect(response.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool-call"]);
    const got = received[0] as Received;
    expect(got.path).toBe("/v1/messages");
    expect(got.headers["x-api-key"]).toBe("sk-ant-test");
    expect(got.headers["anthropic-version"]).toBe("2023-06-01");
    expect(got.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(got.headers["x-extra"]).toBe("1");
    expect(got.headers.authorization).toBeUndefined();
    expect(got.body).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 2048,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in SF?" }] }],
      tools: [{ name: "get_weather", input_schema: { type: "object" } }],
    });
    expect(bodies).toEqual([got.body]);
  });

  test("stream: events relayed; collect equals the non-streamed parts", async () => {
    mode = "ok";
    received.length = 0;
    const { c } = call(true);
    const events = await anthropic.stream(c);
    const list = await drain(events);
    expect((received[0] as Received).body.stream).toBe(true);
    expect(list[0]?.type).toBe("start");
    expect(list.at(-1)).toEqual({ type: "finish", finish: { reason: "tool_calls", raw: "tool_use" } });
    async function* again() {
      yield* list;
    }
    const collected = await collect(again());
    expect(collected.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool-call"]);
  });

  test("a 529 is thrown before any stream is returned (routing may still fall back)", async () => {
    mode = "overloaded";
    const { c } = call(true);
    const failure = await anthropic.stream(c).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ type: "provider_overloaded", status: 529, retryable: true });
  });

  test("the call's signal aborts the upstream request", async () => {
    mode = "hang";
    const controller = new AbortController();
    const { c } = call(false, controller.signal);
    const pending = anthropic.generate(c);
    setTimeout(() => controller.abort(new Error("client went away")), 20);
    await expect(pending).rejects.toThrow("client went away");
  });
});
