/**
 * The `openai` npm client reads what the Responses format writes, including the strict `responses.stream()` helper
 * (it validates item identities, indexes and lifecycle). No port: the client gets an injected fetch that validates
 * and decodes its request body with responsesFormat and answers with our encoder's output.
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { GatewayError } from "../../../../core/errors.ts";
import { responsesFormat } from "../../../../core/formats/responses/index.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import { formatClient } from "../openai-client.ts";
import { TOOL_TURN } from "./helpers.ts";

function client(events: StreamEvent[], seen: CanonicalRequest[] = []): OpenAI {
  return formatClient(responsesFormat, events, seen);
}

const params = {
  model: "openai/gpt-5",
  instructions: "Be brief.",
  input: [
    { role: "user" as const, content: "Weather in Paris and Rome?" },
  ],
  tools: [{ type: "function" as const, name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
  reasoning: { effort: "low" as const, summary: "auto" as const },
  max_output_tokens: 500,
};

describe("openai npm client", () => {
  test("responses.create (non-streaming): output items, usage and the decoded request", async () => {
    const seen: CanonicalRequest[] = [];
    const response = await client(TOOL_TURN, seen).responses.create(params);
    expect(response.status).toBe("completed");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    expect(response.output_text).toBe("Checking weather.");
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(64);
    expect(seen[0]?.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(seen[0]?.maxTokens).toBe(500);
  });

  test("responses.create({stream: true}): raw events in order, ending with response.completed", async () => {
    const stream = await client(TOOL_TURN).responses.create({ ...params, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.function_call_arguments.delta");
  });

  test("responses.stream() helper accepts the whole sequence and builds the final response", async () => {
    const runner = client(TOOL_TURN).responses.stream(params);
    const deltas: string[] = [];
    runner.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await runner.finalResponse();
    expect(deltas.join("")).toBe("Checking weather.");
    expect(final.id).toBe("gen-client");
    const calls = final.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => (c.type === "function_call" ? [c.call_id, c.arguments] : []))).toEqual([
      ["call_1", '{"city":"Paris"}'],
      ["call_2", '{"city":"Rome"}'],
    ]);
    const reasoning = final.output[0];
    expect(reasoning?.type === "reasoning" ? reasoning.encrypted_content : undefined).toBe("gAAAAenc");
  });

  test("responses.stream() with reasoning text and an incomplete finish", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "reasoning-start", id: "r1", itemId: "rs_1" },
      { type: "reasoning-delta", id: "r1", delta: "hmm" },
      { type: "reasoning-end", id: "r1" },
      { type: "text-delta", id: "t", delta: "Once" },
      { type: "finish", finish: { reason: "length" } },
    ];
    const final = await client(events).responses.stream(params).finalResponse();
    expect(final.status).toBe("incomplete");
    expect(final.incomplete_details?.reason).toBe("max_output_tokens");
    expect(final.output_text).toBe("Once");
  });

  test("a mid-stream failure surfaces as response.failed with error_type", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "r", model: "m", provider: "p", created: 1 },
      { type: "text-delta", id: "t", delta: "par" },
      { type: "error", error: new GatewayError("provider_overloaded", "Provider returned error") },
    ];
    const stream = await client(events).responses.create({ ...params, stream: true });
    let failed: Record<string, unknown> | undefined;
    for await (const event of stream) if (event.type === "response.failed") failed = event as unknown as Record<string, unknown>;
    expect(failed?.error_type).toBe("provider_overloaded");
    expect((failed?.response as Record<string, unknown>).status).toBe("failed");
  });
});
