/** Test helpers for the Responses format: schema-then-decode, an encode context, event replay and SSE parsing. */
import { expect } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { GatewayError, isGatewayError } from "../../../../core/errors.ts";
import type { EncodeContext } from "../../../../core/formats/format.ts";
import { decodeResponses } from "../../../../core/formats/responses/decode.ts";
import { ResponsesRequestSchema } from "../../../../core/formats/responses/schema.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";

/** The schema compiled once, as the edge does. */
export const validator = TypeCompiler.Compile(ResponsesRequestSchema);

/** What the edge does with a body: schema check (400 on failure), then decode. */
export function parse(body: Record<string, unknown>, headers: Headers = new Headers()): CanonicalRequest {
  if (!validator.Check(body)) {
    const first = validator.Errors(body).First();
    throw new GatewayError("invalid_request", `Invalid request parameters: ${first?.path ?? ""} ${first?.message ?? ""}`.trim());
  }
  return decodeResponses(body, headers);
}

/** The 400 GatewayError `parse` throws for `body`; fails the test when it does not throw one. */
export function rejection(body: Record<string, unknown>): GatewayError {
  try {
    parse(body);
  } catch (thrown) {
    if (isGatewayError(thrown)) {
      expect(thrown.status).toBe(400);
      expect(thrown.type).toBe("invalid_request");
      return thrown;
    }
    throw thrown;
  }
  throw new Error(`expected a 400 for ${JSON.stringify(body).slice(0, 200)}`);
}

/** An encode context for `body` (decoded for real), optionally with opted-in routing metadata. */
export function context(body: Record<string, unknown> = {}, metadata?: Record<string, unknown>): EncodeContext {
  const request = parse({ model: "openai/gpt-5", input: "hi", ...body });
  const ctx: EncodeContext = { request, generationId: "gen-1" };
  if (metadata) ctx.trailer = { serviceMetadata: metadata };
  return ctx;
}

/** Replays a fixed event list as an async stream; drains an async iterable into an array. */
export { drain, replay } from "../../../support/iterables.ts";

/** One parsed SSE frame: the `event:` name and the JSON payload. */
export interface Frame {
  event: string;
  data: Record<string, unknown>;
}

/** Checks the framing (`event:` + `data:` per frame, `[DONE]` exactly once and last) and parses the frames. */
export function parseFrames(frames: readonly string[]): Frame[] {
  expect(frames.at(-1)).toBe("data: [DONE]\n\n");
  expect(frames.filter((frame) => frame.includes("[DONE]"))).toHaveLength(1);
  return frames.slice(0, -1).map((frame) => {
    const match = /^event: ([^\n]+)\ndata: ([^\n]+)\n\n$/.exec(frame);
    expect(match).not.toBeNull();
    const data = JSON.parse(match?.[2] ?? "{}") as Record<string, unknown>;
    expect(data.type).toBe(match?.[1]);
    return { event: match?.[1] ?? "", data };
  });
}

/** Canonical usage shorthand. */
export function usage(input: number, output: number, cacheRead = 0, reasoning = 0): Extract<StreamEvent, { type: "usage" }>["usage"] {
  return { input: { total: input, cacheRead, cacheWrite: 0 }, output: { total: output, reasoning } };
}

/** A canonical stream with reasoning, text, then two function calls (the shape of a real tool-using turn). */
export const TOOL_TURN: StreamEvent[] = [
  { type: "start", id: "resp_up", model: "openai/gpt-5", provider: "OpenAI", created: 1_700_000_000 },
  { type: "reasoning-start", id: "rs_abc", itemId: "rs_abc", format: "openai-responses-v1" },
  { type: "reasoning-delta", id: "rs_abc", delta: "Need both ", kind: "summary" },
  { type: "reasoning-delta", id: "rs_abc", delta: "cities.", kind: "summary" },
  { type: "reasoning-end", id: "rs_abc", encrypted: "gAAAAenc" },
  { type: "text-start", id: "msg:0" },
  { type: "text-delta", id: "msg:0", delta: "Checking " },
  { type: "text-delta", id: "msg:0", delta: "weather." },
  { type: "text-end", id: "msg:0" },
  { type: "tool-call-start", id: "call_1", name: "get_weather", itemId: "fc_1" },
  { type: "tool-call-delta", id: "call_1", delta: '{"city":' },
  { type: "tool-call-delta", id: "call_1", delta: '"Paris"}' },
  { type: "tool-call-end", id: "call_1" },
  { type: "tool-call-start", id: "call_2", name: "get_weather", itemId: "fc_2" },
  { type: "tool-call-delta", id: "call_2", delta: '{"city":"Rome"}' },
  { type: "tool-call-end", id: "call_2" },
  { type: "usage", usage: usage(120, 48, 64, 16), cost: { total: 0.0012, input: 0.0004, output: 0.0008, upstream: 0.001 } },
  { type: "finish", finish: { reason: "tool_calls", raw: "completed" } },
];
