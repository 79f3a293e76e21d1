import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { fromGeminiResponse } from "../../../../providers/gemini/response.ts";
import { geminiHeaders, geminiUrl, toGeminiBody } from "../../../../providers/gemini/request.ts";
import { canonicalRequest, providerCall, target } from "../helpers.ts";
import { CALLS_RESPONSE } from "./fixtures.ts";

const weather = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };

describe("gemini request", () => {
  test("URL, streaming URL and headers", () => {
    expect(geminiUrl("https://generativelanguage.googleapis.com/v1beta/", "gemini-2.5-flash", false)).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    );
    expect(geminiUrl("https://generativelanguage.googleapis.com/v1beta", "models/gemini-2.5-flash", true)).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    expect(geminiHeaders(target({ apiKey: "AIza-test", headers: { "x-goog-user-project": "p" } }))).toEqual({ "x-goog-api-key": "AIza-test", "x-goog-user-project": "p" });
  });

  test("a Messages client's request: exact body", () => {
    const request = messagesFormat.decode(
      {
        model: "google/gemini-2.5-flash",
        max_tokens: 1000,
        system: "You are a weather bot.",
        temperature: 0.4,
        top_p: 0.9,
        top_k: 32,
        stop_sequences: ["END"],
        thinking: { type: "enabled", budget_tokens: 2048 },
        tools: [{ name: "get_weather", description: "Current weather", input_schema: weather }],
        tool_choice: { type: "tool", name: "get_weather" },
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in this picture, and the weather there?" },
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
              { type: "image", source: { type: "url", url: "https://example.com/paris.png" } },
            ],
          },
        ],
      },
      new Headers(),
    );
    expect(toGeminiBody(request, target({ upstreamModel: "gemini-2.5-flash" }))).toEqual({
      contents: [
        {
          role: "user",
          parts: [
            { text: "What is in this picture, and the weather there?" },
            { inlineData: { mimeType: "image/jpeg", data: "/9j/4AAQ" } },
            { fileData: { fileUri: "https://example.com/paris.png", mimeType: "image/png" } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: "You are a weather bot." }] },
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Current weather", parametersJsonSchema: weather }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: {
        temperature: 0.4,
        topP: 0.9,
        topK: 32,
        maxOutputTokens: 1000,
        stopSequences: ["END"],
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      },
    });
    expect(request.warnings).toEqual([]);
  });

  test("tool round trip: Gemini's own turn goes back with its thought signature; results become functionResponse", () => {
    const previous = fromGeminiResponse(CALLS_RESPONSE, providerCall({ target: target({ providerId: "gemini", upstreamModel: "gemini-2.5-flash" }) }));
    const request = canonicalRequest({
      tools: [{ kind: "function", name: "get_weather", parameters: weather }],
      messages: [
        { role: "user", parts: [{ type: "text", text: "Weather in Paris and Rome?" }] },
        { role: "assistant", parts: previous.parts },
        { role: "tool", parts: [{ type: "tool-result", callId: "call_0", content: '{"temp_c": 18}' }] },
        { role: "tool", parts: [{ type: "tool-result", callId: "call_1", content: "timeout", isError: true }] },
        { role: "user", parts: [{ type: "text", text: "Compare them." }] },
      ],
    });
    const body = toGeminiBody(request, target({ upstreamModel: "gemini-2.5-flash" }));
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
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
          { functionResponse: { name: "get_weather", response: { temp_c: 18 } } },
          { functionResponse: { name: "get_weather", response: { error: "timeout" } } },
          { text: "Compare them." },
        ],
      },
    ]);
    expect(request.warnings).toEqual([]);
  });

  test("history from another family: foreign reasoning dropped with a warning; Gemini 3 gets the skip sentinel", () => {
    const request = canonicalRequest({
      reasoning: { effort: "high" },
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "hmm", signature: "EqQB", format: "anthropic-claude-v1" },
            { type: "tool-call", id: "toolu_1", name: "lookup", arguments: '{"q":"x"}' },
          ],
        },
        { role: "tool", parts: [{ type: "tool-result", callId: "toolu_1", content: "plain text" }] },
      ],
    });
    const body = toGeminiBody(request, target({ upstreamModel: "gemini-3-pro-preview" }));
    expect(body.contents[1]).toEqual({
      role: "model",
      parts: [{ functionCall: { name: "lookup", args: { q: "x" } }, thoughtSignature: "skip_thought_signature_validator" }],
    });
    expect(body.contents[2]).toEqual({ role: "user", parts: [{ functionResponse: { name: "lookup", response: { output: "plain text" } } }] });
    expect(body.generationConfig?.thinkingConfig).toEqual({ thinkingLevel: "high", includeThoughts: true });
    expect(request.warnings.map((w) => w.field)).toEqual(["messages.assistant.reasoning", "messages.assistant.thought_signature"]);
  });

  test("structured output, effort budgets, and what Gemini cannot take", () => {
    const request = canonicalRequest({
      output: { format: { type: "json_schema", name: "w", schema: weather } },
      reasoning: { effort: "low" },
      sampling: { seed: 3, logitBias: { "1": 2 } },
      user: "u-1",
      cache: { control: { type: "ephemeral" } },
      tools: [{ kind: "server", type: "service:web_search" }],
      parallelToolCalls: false,
    });
    const body = toGeminiBody(request, target({ upstreamModel: "gemini-2.5-flash" }));
    expect(body.generationConfig).toEqual({
      seed: 3,
      responseMimeType: "application/json",
      responseJsonSchema: weather,
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(body.tools).toBeUndefined();
    expect(request.warnings.map((w) => w.field)).toEqual(["tools[0]", "logit_bias", "cache_control", "user"]);
    const openapi = toGeminiBody(canonicalRequest({ output: { format: { type: "json_schema", name: "w", schema: weather } } }), target({ options: { schema_mode: "openapi" } }));
    expect(openapi.generationConfig).toEqual({ responseMimeType: "application/json", responseSchema: weather });
    expect(toGeminiBody(canonicalRequest({ reasoning: { enabled: false } }), target({ upstreamModel: "gemini-2.5-flash" })).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });
});
