import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { MessagesRequestSchema } from "../../../../core/formats/messages/schema.ts";

const check = TypeCompiler.Compile(MessagesRequestSchema);
const base = { model: "anthropic/claude-sonnet-4.5", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] };

describe("messages schema (edge validation)", () => {
  test("the SDK's minimal sample is valid", () => {
    expect(check.Check(base)).toBe(true);
  });

  test("fallbacks: 3 entries ok, 4 rejected, extra key rejected", () => {
    expect(check.Check({ ...base, fallbacks: [{ model: "a" }, { model: "b" }, { model: "c" }] })).toBe(true);
    expect(check.Check({ ...base, fallbacks: [{ model: "a" }, { model: "b" }, { model: "c" }, { model: "d" }] })).toBe(false);
    expect(check.Check({ ...base, fallbacks: [{ model: "a", temperature: 1 }] })).toBe(false);
  });

  test("limits: session_id and user at most 256 characters; speed enum", () => {
    expect(check.Check({ ...base, session_id: "s".repeat(256), user: "u".repeat(256) })).toBe(true);
    expect(check.Check({ ...base, session_id: "s".repeat(257) })).toBe(false);
    expect(check.Check({ ...base, user: "u".repeat(257) })).toBe(false);
    expect(check.Check({ ...base, speed: null })).toBe(true);
    expect(check.Check({ ...base, speed: "ludicrous" })).toBe(false);
  });

  test("unknown top-level fields pass (decode warns)", () => {
    expect(check.Check({ ...base, brand_new: { x: 1 } })).toBe(true);
  });

  test("every block kind of a real multi-turn conversation validates", () => {
    const body = {
      ...base,
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral", ttl: "1h" } }],
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [{ name: "f", input_schema: { type: "object" } }, { type: "service:datetime" }],
      tool_choice: { type: "auto" },
      output_config: { effort: "low", format: { type: "json_schema", schema: { type: "object" } } },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a", citations: null },
            { type: "image", source: { type: "url", url: "https://x/y.png" } },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "d" }, title: "t" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "sig" },
            { type: "redacted_thinking", data: "r" },
            { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "ok" }], is_error: false }] },
      ],
    };
    expect(check.Check(body)).toBe(true);
    expect(check.Check({ ...base, messages: [{ role: "user", content: [{ type: "hologram" }] }] })).toBe(false);
  });
});
