/** Chat messages → canonical system + messages (spec "Chat-completions request" `messages`). */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { isGatewayError } from "../../../../core/errors.ts";
import { decodeChat } from "../../../../core/formats/chat/decode.ts";
import { ChatRequestSchema } from "../../../../core/formats/chat/schema.ts";

const validator = TypeCompiler.Compile(ChatRequestSchema);

function decodeMessages(messages: unknown[]) {
  const body = { model: "m", messages };
  expect(validator.Check(body)).toBe(true);
  return decodeChat(body, new Headers());
}

describe("system and developer messages", () => {
  test("are hoisted into system in order, keeping cache marks", () => {
    const request = decodeMessages([
      { role: "system", content: "You are terse." },
      { role: "developer", content: [{ type: "text", text: "Use JSON.", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: "hi" },
    ]);
    expect(request.system).toEqual([
      { type: "text", text: "You are terse." },
      { type: "text", text: "Use JSON.", cache: { type: "ephemeral" } },
    ]);
    expect(request.warnings).toEqual([]);
  });

  test("one after the conversation started is moved with an `approximated` warning", () => {
    const request = decodeMessages([
      { role: "user", content: "hi" },
      { role: "system", content: "late" },
    ]);
    expect(request.system).toEqual([{ type: "text", text: "late" }]);
    expect(request.messages).toHaveLength(1);
    expect(request.warnings).toEqual([expect.objectContaining({ code: "approximated", field: "messages[1]" })]);
  });
});

describe("user messages", () => {
  test("text, image_url, file and input_audio parts", () => {
    const request = decodeMessages([
      {
        role: "user",
        name: "alice",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR", detail: "high" } },
          { type: "image_url", image_url: { url: "https://example.com/a.jpg" }, cache_control: { type: "ephemeral" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBER", filename: "doc.pdf" } },
          { type: "file", file: { file_id: "file-123" } },
          { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } },
        ],
      },
    ]);
    expect(request.messages).toEqual([
      {
        role: "user",
        name: "alice",
        parts: [
          { type: "text", text: "look" },
          { type: "image", url: "data:image/png;base64,iVBOR", mediaType: "image/png", detail: "high" },
          { type: "image", url: "https://example.com/a.jpg", cache: { type: "ephemeral" } },
          { type: "file", data: "data:application/pdf;base64,JVBER", mediaType: "application/pdf", filename: "doc.pdf" },
          { type: "file", data: "file-123" },
          { type: "file", data: "data:audio/wav;base64,UklGR", mediaType: "audio/wav" },
        ],
      },
    ]);
  });

  test("a file part with neither data nor id is a 400", () => {
    let error: unknown;
    try {
      decodeMessages([{ role: "user", content: [{ type: "file", file: { filename: "x.pdf" } }] }]);
    } catch (e) {
      error = e;
    }
    expect(isGatewayError(error) && error.status).toBe(400);
    expect(String((error as Error).message)).toContain("messages[0].content[0].file");
  });
});

describe("assistant and tool messages", () => {
  test("tool calls keep id and arguments verbatim; null content yields no text part", () => {
    const args = '{"city": "Paris",  "unit":"c"}';
    const request = decodeMessages([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: args } }],
      },
      { role: "tool", tool_call_id: "call_abc", content: '{"temp": 21}' },
      { role: "tool", tool_call_id: "call_def", name: "lookup", content: [{ type: "text", text: "a" }] },
    ]);
    expect(request.messages.slice(1)).toEqual([
      { role: "assistant", parts: [{ type: "tool-call", id: "call_abc", name: "get_weather", arguments: args }] },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_abc", content: '{"temp": 21}' }] },
      { role: "tool", parts: [{ type: "tool-result", callId: "call_def", name: "lookup", content: [{ type: "text", text: "a" }] }] },
    ]);
  });

  test("reasoning_details become reasoning parts; items sharing an id merge", () => {
    const request = decodeMessages([
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "answer",
        reasoning: "thinking…",
        reasoning_details: [
          { type: "reasoning.text", text: "thinking…", signature: "sig-1", format: "anthropic-claude-v1", index: 0 },
          { type: "reasoning.encrypted", data: "REDACTED", format: "anthropic-claude-v1", index: 1 },
          { type: "reasoning.summary", summary: "plan", id: "rs_1", format: "openai-responses-v1", index: 2 },
          { type: "reasoning.encrypted", data: "gAAA", id: "rs_1", format: "openai-responses-v1", index: 3 },
        ],
        refusal: "partly refused",
      },
    ]);
    expect(request.messages[1]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", text: "thinking…", signature: "sig-1", format: "anthropic-claude-v1" },
        { type: "reasoning", text: "", redacted: "REDACTED", format: "anthropic-claude-v1" },
        { type: "reasoning", text: "", id: "rs_1", format: "openai-responses-v1", summary: ["plan"], encrypted: "gAAA" },
        { type: "text", text: "answer" },
        { type: "refusal", text: "partly refused" },
      ],
    });
  });

  test("format `unknown` (what the encoder writes for reasoning of no named family) decodes to no family", () => {
    const request = decodeMessages([
      { role: "user", content: "q" },
      { role: "assistant", content: "a", reasoning_details: [{ type: "reasoning.text", text: "hmm", format: "unknown", index: 0 }] },
    ]);
    expect(request.messages[1]?.parts[0]).toEqual({ type: "reasoning", text: "hmm" });
  });

  test("plain `reasoning`, content parts with refusal, and empty content", () => {
    const request = decodeMessages([
      { role: "user", content: "q" },
      { role: "assistant", reasoning: "r", content: [{ type: "text", text: "a" }, { type: "refusal", refusal: "no" }] },
      { role: "assistant", content: "" },
    ]);
    expect(request.messages.slice(1)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "r" },
          { type: "text", text: "a" },
          { type: "refusal", text: "no" },
        ],
      },
      { role: "assistant", parts: [] },
    ]);
  });

  test("unknown message fields are warned, not fatal", () => {
    const request = decodeMessages([
      { role: "user", content: "q" },
      { role: "assistant", content: "a", annotations: [] },
    ]);
    expect(request.warnings).toEqual([
      { code: "unknown_field", field: "messages[1].annotations", message: "Unknown message field `annotations` was ignored" },
    ]);
  });
});
