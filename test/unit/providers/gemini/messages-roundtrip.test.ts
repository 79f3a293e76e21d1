import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { toAnthropicBody } from "../../../../providers/anthropic/request.ts";
import { toGeminiBody } from "../../../../providers/gemini/request.ts";
import { fromGeminiResponse } from "../../../../providers/gemini/response.ts";
import { providerCall, target } from "../helpers.ts";
import { encodeContext } from "../../formats/messages/helpers.ts";
import { CALLS_RESPONSE } from "./fixtures.ts";

/** A Messages client talking to a Gemini model: turn 1 result → the client's turn 2 request. */
function secondTurn(): Record<string, unknown> {
  const turn1 = fromGeminiResponse(CALLS_RESPONSE, providerCall({ target: target({ providerId: "gemini", upstreamModel: "gemini-2.5-flash" }) }));
  const result = messagesFormat.encode(turn1, encodeContext());
  const content = result.content as Array<Record<string, unknown>>;
  return {
    model: "google/gemini-2.5-flash",
    max_tokens: 512,
    tools: [{ name: "get_weather", input_schema: { type: "object" } }],
    messages: [
      { role: "user", content: "Weather in Paris and Rome?" },
      { role: "assistant", content },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: content[1]?.id, content: "18C" },
          { type: "tool_result", tool_use_id: content[2]?.id, content: "21C" },
        ],
      },
    ],
  };
}

describe("Messages client × Gemini: thought signatures survive the client", () => {
  test("the Messages result shows a thinking block (packed signature) and tool_use blocks with call ids", () => {
    const body = secondTurn();
    const assistant = (body.messages as Array<{ content: Array<Record<string, unknown>> }>)[1]?.content ?? [];
    expect(assistant.map((b) => b.type)).toEqual(["thinking", "tool_use", "tool_use"]);
    expect(String(assistant[0]?.signature).startsWith("gwr1.")).toBe(true);
    expect(assistant.slice(1).map((b) => [b.id, b.input])).toEqual([
      ["call_0", { location: "Paris" }],
      ["call_1", { location: "Rome" }],
    ]);
  });

  test("next turn to Gemini: the signature is back on the first functionCall; results are named", () => {
    const request = messagesFormat.decode(secondTurn(), new Headers());
    const body = toGeminiBody(request, target({ upstreamModel: "gemini-2.5-flash" }));
    expect(body.contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { location: "Paris" } }, thoughtSignature: "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwwd75" },
          { functionCall: { name: "get_weather", args: { location: "Rome" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { output: "18C" } } },
          { functionResponse: { name: "get_weather", response: { output: "21C" } } },
        ],
      },
    ]);
    expect(request.warnings).toEqual([]);
  });

  test("the same history sent to Anthropic instead: the Gemini signature is never forwarded", () => {
    const request = messagesFormat.decode(secondTurn(), new Headers());
    const body = toAnthropicBody(request, target({ upstreamModel: "claude-sonnet-4-5" }), false);
    const assistant = body.messages[1];
    expect(assistant?.content.map((b) => b.type)).toEqual(["tool_use", "tool_use"]);
    expect(request.warnings.map((w) => w.field)).toEqual(["messages.assistant.reasoning"]);
  });
});
