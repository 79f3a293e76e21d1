/**
 * One row per warning site of a request translation (strict.test.ts): the file of the site, a request in one inbound
 * format that reaches it on one adapter, and the `field` the warning names. `body` is merged over a one-question
 * conversation in the row's format (chat `messages`, Responses `input`, Messages `messages` + `max_tokens`).
 */
import { REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { WIRE, type AdapterId } from "../../support/fake-upstream/fixtures.ts";

export type FormatId = "chat" | "responses" | "messages";

export interface Row {
  site: string;
  format: FormatId;
  adapter: AdapterId;
  body: Record<string, unknown>;
  field: string;
  /** A model other than the adapter's conformance model (STRICT_PROVIDERS below). */
  model?: string;
  /** That model is another upstream model, called on another path than the adapter's fixtures name. */
  otherPath?: true;
}

/** A warning site no request over HTTP reaches, with the reason (counted by the completeness check). */
export interface Unreachable {
  site: string;
  field: string;
  why: string;
}

const Q = "What is the capital of France?";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SIGNED = "EqQBCkgIBBABGAIiQL0cR2v8yZ1c3pQnTq0Lw7ZbW1vK5mYh3xJrP9sD4fG6hJ8k";
const FN = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
const CHAT_FN = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } };
const MSG_FN = { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } };
const ephemeral = { type: "ephemeral" };

/** A Messages conversation: a call of get_weather and its result with `content`, then a question. */
const messagesToolTurn = (result: Record<string, unknown>, after: unknown[] = []) => ({
  tools: [MSG_FN],
  messages: [
    { role: "user", content: Q },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_01X", name: "get_weather", input: { city: "Paris" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01X", ...result }, ...after] },
  ],
});
/** A Responses conversation: a function call and its output. */
const responsesToolTurn = (output: unknown, call: Record<string, unknown> = {}) => ({
  tools: [FN],
  input: [
    { role: "user", content: Q },
    { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', ...call },
    { type: "function_call_output", call_id: "call_1", output },
  ],
});
/** A Messages user turn holding one content block. */
const messagesUserBlock = (block: Record<string, unknown>) => ({ messages: [{ role: "user", content: [block, { type: "text", text: Q }] }] });
/** A Messages assistant turn replayed with its blocks. */
const messagesReplay = (blocks: unknown[]) => ({ messages: [{ role: "user", content: Q }, { role: "assistant", content: blocks }, { role: "user", content: "And Italy?" }] });
/** A Responses user message holding a refusal part (no upstream but Responses has one in a user turn). */
const responsesUserRefusal = { input: [{ role: "user", content: [{ type: "refusal", refusal: "I will not say." }, { type: "input_text", text: Q }] }] };
/** A Responses assistant message holding an image (no chat-family upstream has images in assistant turns). */
const responsesAssistantImage = {
  input: [{ role: "user", content: Q }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris." }, { type: "input_image", image_url: `data:image/png;base64,${PNG}` }] }, { role: "user", content: "And Italy?" }],
};
/** A Responses conversation replaying items after the question. */
const responsesReplay = (items: unknown[]) => ({ input: [{ role: "user", content: Q }, ...items, { role: "user", content: "And Italy?" }] });

const DECODERS: Row[] = [
  // chat decoder
  { site: "core/formats/shared/unknown-fields.ts", format: "chat", adapter: "openai", body: { frobnicate: true }, field: "frobnicate" },
  { site: "core/formats/chat/decode-messages.ts", format: "chat", adapter: "openai", body: { messages: [{ role: "user", content: Q, mood: "curious" }] }, field: "messages[0].mood" },
  { site: "core/formats/chat/decode-messages.ts", format: "chat", adapter: "openai", body: { messages: [{ role: "user", content: Q }, { role: "system", content: "Be brief." }] }, field: "messages[1]" },
  { site: "core/formats/chat/decode-messages.ts", format: "chat", adapter: "openai", body: { messages: [{ role: "system", content: "Be brief.", name: "rules" }, { role: "user", content: Q }] }, field: "messages[0].name" },
  { site: "core/formats/chat/decode-options.ts", format: "chat", adapter: "openai", body: { max_tokens: 100, max_completion_tokens: 200 }, field: "max_tokens" },
  // Messages decoder
  { site: "core/formats/shared/unknown-fields.ts", format: "messages", adapter: "anthropic", body: { frobnicate: true }, field: "frobnicate" },
  { site: "core/formats/messages/decode.ts", format: "messages", adapter: "anthropic", body: { metadata: { user_id: "u1", team: "a" } }, field: "metadata.team" },
  { site: "core/formats/messages/decode.ts", format: "messages", adapter: "anthropic", body: { user: "u2", metadata: { user_id: "u1" } }, field: "metadata.user_id" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: { messages: [{ role: "user", content: Q }, { role: "system", content: "Be brief." }, { role: "user", content: "Please." }] }, field: "messages[1]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesReplay([{ type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] }, { type: "text", text: "Paris." }]), field: "messages[1].content[0]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesReplay([{ type: "text", text: "Paris." }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }]), field: "messages[1].content[1]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: { ...messagesToolTurn({ content: "18C" }), messages: [{ role: "user", content: Q }, { role: "assistant", content: [{ type: "tool_use", id: "toolu_01X", name: "get_weather", input: {}, cache_control: ephemeral }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01X", content: "18C" }] }] }, field: "messages[1].content[0].cache_control" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesToolTurn({ content: [{ type: "image", source: { type: "file", file_id: "file_abc" } }] }), field: "messages[2].content[0].content[0]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesToolTurn({ content: [{ type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }] }), field: "messages[2].content[0].content[0]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesUserBlock({ type: "image", source: { type: "file", file_id: "file_abc" } }), field: "messages[0].content[0]" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesUserBlock({ type: "document", source: { type: "text", media_type: "text/plain", data: "Paris is the capital." }, citations: { enabled: true } }), field: "messages[0].content[0].citations" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesUserBlock({ type: "document", source: { type: "text", media_type: "text/plain", data: "Paris is the capital." }, context: "an atlas" }), field: "messages[0].content[0].context" },
  { site: "core/formats/messages/decode-content.ts", format: "messages", adapter: "anthropic", body: messagesUserBlock({ type: "document", source: { type: "content", content: "Paris is the capital." } }), field: "messages[0].content[0]" },
  // Responses decoder
  { site: "core/formats/responses/decode.ts", format: "responses", adapter: "openai-responses", body: { frobnicate: true }, field: "frobnicate" },
  { site: "core/formats/responses/decode-tools.ts", format: "responses", adapter: "openai-responses", body: { tools: [FN, { type: "file_search", vector_store_ids: ["vs_1"] }] }, field: "tools[1]" },
  { site: "core/formats/responses/decode-tools.ts", format: "responses", adapter: "openai-responses", body: { tools: [FN], tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "get_weather" }] } }, field: "tool_choice" },
  { site: "core/formats/responses/decode-tools.ts", format: "responses", adapter: "openai-responses", body: { tools: [FN], tool_choice: { type: "file_search" } }, field: "tool_choice" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: { input: [{ role: "user", content: Q }, { role: "developer", content: "Be brief." }] }, field: "input[1]" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: responsesReplay([{ type: "file_search_call", id: "fs_1", status: "completed", queries: ["capital"] }]), field: "input[1]" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: { input: [{ role: "system", content: [{ type: "input_image", image_url: `data:image/png;base64,${PNG}` }] }, { role: "user", content: Q }] }, field: "input[0].content[0]" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: { input: [{ role: "user", content: [{ type: "input_image", file_id: "file_abc" }, { type: "input_text", text: Q }] }] }, field: "input[0].content[0]" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: responsesToolTurn([{ type: "input_image", file_id: "file_abc" }]), field: "input[2].output[0]" },
  { site: "core/formats/responses/decode-input.ts", format: "responses", adapter: "openai-responses", body: responsesToolTurn([{ type: "input_file", file_url: "https://example.com/a.pdf" }]), field: "input[2].output[0]" },
  // The gateway's own tracing (off in this gateway): `trace` has no reader.
  { site: "core/observe/tracing/unused-trace.ts", format: "responses", adapter: "openai-responses", body: { trace: { trace_name: "checkout" } }, field: "trace" },
];

const OPENAI: Row[] = [
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { tools: [MSG_FN, { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }] }, field: "tools[1]" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { tools: [{ ...MSG_FN, cache_control: ephemeral }] }, field: "cache_control" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } }, field: "reasoning.max_tokens" },
  { site: "providers/openai/request.ts", format: "responses", adapter: "openai", body: { reasoning: { summary: "auto" } }, field: "reasoning.summary" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { thinking: { type: "disabled" } }, field: "reasoning.enabled" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048, display: "omitted" } }, field: "reasoning" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { cache_control: ephemeral }, field: "cache_control" },
  { site: "providers/openai/request.ts", format: "responses", adapter: "openai", body: { truncation: "auto" }, field: "truncation" },
  { site: "providers/openai/request.ts", format: "messages", adapter: "openai", body: { speed: "fast" }, field: "speed" },
  { site: "providers/openai/request.ts", format: "responses", adapter: "openai", body: { tools: [{ ...FN, async: true }] }, field: "tools[0].async" },
  { site: "providers/openai/messages.ts", format: "responses", adapter: "openai", body: responsesUserRefusal, field: "messages.user.refusal" },
  { site: "providers/openai/messages.ts", format: "messages", adapter: "openai", body: messagesToolTurn({ content: "service down", is_error: true }), field: "tool_result.is_error" },
  { site: "providers/openai/messages.ts", format: "messages", adapter: "openai", body: messagesToolTurn({ content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] }), field: "tool_result.image" },
  { site: "providers/openai/messages.ts", format: "responses", adapter: "openai", body: responsesAssistantImage, field: "messages.assistant.image" },
  { site: "providers/openai/messages.ts", format: "messages", adapter: "openai", body: { system: [{ type: "text", text: "Be brief.", cache_control: ephemeral }] }, field: "cache_control" },
];

const RESPONSES: Row[] = [
  { site: "providers/openai-responses/input.ts", format: "responses", adapter: "openai-responses", body: responsesAssistantImage, field: "messages[1].image" },
  { site: "providers/openai-responses/input.ts", format: "messages", adapter: "openai-responses", body: messagesToolTurn({ content: "service down", is_error: true }), field: "messages[2].is_error" },
  { site: "providers/openai-responses/input.ts", format: "messages", adapter: "openai-responses", body: messagesReplay([{ type: "redacted_thinking", data: "opaque" }, { type: "text", text: "Paris." }]), field: "messages[1].reasoning" },
  { site: "providers/openai-responses/input.ts", format: "chat", adapter: "openai-responses", body: { messages: [{ role: "user", content: Q }, { role: "assistant", content: "Paris.", reasoning_details: [{ type: "reasoning.text", text: "Easy.", signature: SIGNED, format: "anthropic-claude-v1", index: 0 }] }, { role: "user", content: "And Italy?" }] }, field: "messages[1].reasoning" },
  { site: "providers/openai-responses/input.ts", format: "responses", adapter: "openai-responses", body: responsesReplay([{ type: "reasoning", id: "rs_1", encrypted_content: "enc", summary: [], signature: SIGNED }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris." }] }]), field: "messages[1].reasoning.signature" },
  { site: "providers/openai-responses/input.ts", format: "messages", adapter: "openai-responses", body: { messages: [{ role: "user", content: [{ type: "text", text: Q, cache_control: ephemeral }] }] }, field: "cache_control" },
  { site: "providers/openai-responses/request.ts", format: "messages", adapter: "openai-responses", body: { system: [{ type: "text", text: "Be brief.", cache_control: ephemeral }] }, field: "cache_control" },
  { site: "providers/openai-responses/request.ts", format: "messages", adapter: "openai-responses", body: { tools: [MSG_FN, { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }] }, field: "tools[1]" },
  { site: "providers/openai-responses/request.ts", format: "messages", adapter: "openai-responses", body: { tools: [{ ...MSG_FN, cache_control: ephemeral }] }, field: "cache_control" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { seed: 7 }, field: "seed" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { verbosity: "max" }, field: "text.verbosity" },
  { site: "providers/openai-responses/request.ts", format: "messages", adapter: "openai-responses", body: { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } }, field: "reasoning.max_tokens" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", model: "conf/responses-ultrafast", body: { service_tier: "ultrafast" }, field: "service_tier" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { cache_control: ephemeral }, field: "cache_control" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { modalities: ["text", "audio"] }, field: "modalities" },
  { site: "providers/openai-responses/request.ts", format: "messages", adapter: "openai-responses", body: { speed: "fast" }, field: "speed" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { messages: [{ role: "user", content: Q, name: "alice" }] }, field: "messages.name" },
  { site: "providers/openai-responses/request.ts", format: "responses", adapter: "openai-responses", body: { image_config: { aspect_ratio: "16:9" } }, field: "image_config" },
  { site: "providers/openai-responses/request.ts", format: "chat", adapter: "openai-responses", body: { prediction: { type: "content", content: "Paris" } }, field: "prediction" },
  { site: "providers/openai-responses/web-search.ts", format: "responses", adapter: "openai-responses", body: { tools: [{ type: "service:web_search", parameters: { engine: "native", excluded_domains: ["example.com"] } }] }, field: "tools[0].parameters.excluded_domains" },
];

const ANTHROPIC: Row[] = [
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { metadata: { team: "a" } }, field: "metadata" },
  { site: "providers/anthropic/request.ts", format: "responses", adapter: "anthropic", body: { truncation: "auto" }, field: "passthrough.truncation" },
  { site: "providers/anthropic/request.ts", format: "responses", adapter: "anthropic", body: { tools: [{ ...FN, async: true }] }, field: "tools[0].async" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { seed: 7 }, field: "seed" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { response_format: { type: "json_object" } }, field: "response_format" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { verbosity: "low" }, field: "verbosity" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { user: "u1", safety_identifier: "end-user-7" }, field: "safety_identifier" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { prompt_cache_key: "pck" }, field: "prompt_cache_key" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { prompt_cache_options: { mode: "explicit", ttl: "1h" } }, field: "prompt_cache_options" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { modalities: ["text", "image"] }, field: "modalities" },
  { site: "providers/anthropic/request.ts", format: "chat", adapter: "anthropic", body: { messages: [{ role: "user", content: Q, name: "alice" }] }, field: "messages.name" },
  { site: "providers/anthropic/request.ts", format: "responses", adapter: "anthropic", body: { image_config: { aspect_ratio: "1:1" } }, field: "passthrough.image_config" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 4096, reasoning: { max_tokens: 200 } }, field: "reasoning.max_tokens" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 1000, reasoning: { max_tokens: 2000 } }, field: "reasoning" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 3000, reasoning: { max_tokens: 5000 } }, field: "reasoning.max_tokens" },
  { site: "providers/anthropic/thinking.ts", format: "messages", adapter: "anthropic", body: { max_tokens: 4096, output_config: { effort: "minimal" } }, field: "output_config.effort" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, temperature: 0.2 }, field: "temperature" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, top_k: 5 }, field: "top_k" },
  { site: "providers/anthropic/thinking.ts", format: "chat", adapter: "anthropic", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, top_p: 0.5 }, field: "top_p" },
  { site: "providers/anthropic/web-search-tool.ts", format: "responses", adapter: "anthropic", body: { tools: [{ type: "service:web_search", parameters: { engine: "native", allowed_domains: ["a.com"], excluded_domains: ["b.com"] } }] }, field: "tools[0].parameters.excluded_domains" },
  { site: "providers/anthropic/messages.ts", format: "responses", adapter: "anthropic", body: responsesToolTurn("18C", { arguments: "[1,2]" }), field: "tool_use.input" },
  { site: "providers/anthropic/messages.ts", format: "responses", adapter: "anthropic", body: responsesUserRefusal, field: "messages.user.refusal" },
  { site: "providers/anthropic/messages.ts", format: "responses", adapter: "anthropic", body: responsesAssistantImage, field: "messages.assistant.image" },
  { site: "providers/anthropic/messages.ts", format: "chat", adapter: "anthropic", body: { messages: [{ role: "user", content: Q }, { role: "assistant", content: "Paris.", reasoning: "Easy one: Paris." }, { role: "user", content: "And Italy?" }] }, field: "messages.assistant.reasoning" },
];

const GEMINI: Row[] = [
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", model: "conf/gemini-3", body: { reasoning: { enabled: false } }, field: "reasoning" },
  { site: "providers/gemini/request.ts", format: "messages", adapter: "gemini", body: { tools: [{ ...MSG_FN, cache_control: ephemeral }] }, field: "cache_control" },
  { site: "providers/gemini/request.ts", format: "responses", adapter: "gemini", body: { tools: [{ ...FN, strict: true }] }, field: "tools[0].strict" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { tools: [CHAT_FN], parallel_tool_calls: false }, field: "parallel_tool_calls" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { min_p: 0.1 }, field: "min_p" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { verbosity: "low" }, field: "verbosity" },
  { site: "providers/gemini/request.ts", format: "messages", adapter: "gemini", body: { cache_control: ephemeral }, field: "cache_control" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { metadata: { team: "a" } }, field: "metadata" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { user: "end-user-42" }, field: "user" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { safety_identifier: "end-user-7" }, field: "safety_identifier" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { prompt_cache_key: "pck" }, field: "prompt_cache_key" },
  { site: "providers/gemini/request.ts", format: "responses", adapter: "gemini", body: { prompt_cache_options: { mode: "explicit" } }, field: "prompt_cache_options" },
  { site: "providers/gemini/request.ts", format: "messages", adapter: "gemini", body: { speed: "fast" }, field: "speed" },
  { site: "providers/gemini/request.ts", format: "responses", adapter: "gemini", body: { tools: [{ ...FN, async: true }] }, field: "tools[0].async" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { messages: [{ role: "user", content: Q, name: "alice" }] }, field: "messages.name" },
  { site: "providers/gemini/request.ts", format: "chat", adapter: "gemini", body: { prediction: { type: "content", content: "Paris" } }, field: "passthrough.prediction" },
  { site: "providers/gemini/request.ts", format: "responses", adapter: "gemini", body: { truncation: "auto" }, field: "passthrough.truncation" },
  { site: "providers/gemini/contents.ts", format: "messages", adapter: "gemini", body: { messages: [{ role: "user", content: [{ type: "text", text: Q, cache_control: ephemeral }] }] }, field: "cache_control" },
  { site: "providers/gemini/contents.ts", format: "responses", adapter: "gemini", body: responsesUserRefusal, field: "messages.user.refusal" },
  { site: "providers/gemini/contents.ts", format: "messages", adapter: "gemini", body: messagesToolTurn({ content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] }), field: "tool_result.image" },
  { site: "providers/gemini/contents.ts", format: "responses", adapter: "gemini", body: { tools: [FN], input: [{ role: "user", content: Q }, { type: "function_call_output", call_id: "call_9", output: "18C" }] }, field: "tool_result.name" },
  { site: "providers/gemini/contents.ts", format: "chat", adapter: "gemini", body: { messages: [{ role: "user", content: Q }, { role: "assistant", content: "Paris.", reasoning: "Easy one: Paris." }, { role: "user", content: "And Italy?" }] }, field: "messages.assistant.reasoning" },
  { site: "providers/gemini/contents.ts", format: "responses", adapter: "gemini", model: "conf/gemini-3", body: responsesToolTurn("18C"), field: "messages.assistant.thought_signature" },
  { site: "providers/gemini/contents.ts", format: "responses", adapter: "gemini", body: responsesAssistantImage, field: "messages.assistant.image" },
  { site: "providers/gemini/contents.ts", format: "responses", adapter: "gemini", body: responsesToolTurn("18C", { arguments: "[1,2]" }), field: "functionCall.args" },
  { site: "core/provider-kit/native-tools.ts", format: "responses", adapter: "anthropic", body: { tools: [{ type: "service:web_search", parameters: { engine: "native", max_results: 3 } }] }, field: "tools[0].parameters.max_results" },
  {
    site: "core/provider-kit/deferred-tools.ts",
    format: "messages",
    adapter: "openai",
    body: { tools: [MSG_FN, { ...MSG_FN, name: "get_forecast", defer_loading: true }, { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }] },
    field: "tools.defer_loading",
  },
];

// Amazon Bedrock (conf/bedrock is Claude Sonnet 4.5; the other models are STRICT_PROVIDERS' bedrock entries). Sites
// whose warning is `defaulted` (a gateway fill-in strict mode lets pass) have no row of their own: another site of the
// same file has two.
const BEDROCK_JSON = { response_format: { type: "json_schema", json_schema: { name: "weather", schema: { type: "object", properties: { city: { type: "string" } } } } } };
const chatToolHistory = [
  { role: "user", content: Q },
  { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: "18C" },
];
const BEDROCK: Row[] = [
  { site: "providers/bedrock/messages.ts", format: "responses", adapter: "bedrock", body: responsesToolTurn("18C", { arguments: "[1,2]" }), field: "tool_use.input" },
  { site: "providers/bedrock/messages.ts", format: "responses", adapter: "bedrock", body: responsesUserRefusal, field: "messages.user.refusal" },
  { site: "providers/bedrock/messages.ts", format: "responses", adapter: "bedrock", body: responsesAssistantImage, field: "messages.assistant.image" },
  { site: "providers/bedrock/messages.ts", format: "chat", adapter: "bedrock", body: { messages: [{ role: "user", content: [{ type: "text", text: Q }, { type: "image_url", image_url: { url: "https://example.com/tower.png" } }] }] }, field: "messages.image_url" },
  { site: "providers/bedrock/messages.ts", format: "chat", adapter: "bedrock", body: { messages: [{ role: "user", content: [{ type: "text", text: Q }, { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==", filename: "atlas.zip" } }] }] }, field: "messages.file" },
  { site: "providers/bedrock/messages.ts", format: "messages", adapter: "bedrock", body: messagesToolTurn({ content: [{ type: "image", source: { type: "url", url: "https://example.com/chart.png" } }] }), field: "tool_result.image" },
  { site: "providers/bedrock/messages.ts", format: "chat", adapter: "bedrock", body: { messages: [{ role: "user", content: Q }, { role: "assistant", content: "Paris.", reasoning: "Easy one: Paris." }, { role: "user", content: "And Italy?" }] }, field: "messages.assistant.reasoning" },
  { site: "providers/bedrock/output.ts", format: "chat", adapter: "bedrock", body: { verbosity: "low" }, field: "verbosity" },
  { site: "providers/bedrock/output.ts", format: "chat", adapter: "bedrock", body: { response_format: { type: "json_object" } }, field: "response_format" },
  { site: "providers/bedrock/output.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-no-json", body: BEDROCK_JSON, field: "response_format" },
  { site: "providers/bedrock/output.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-json-tool", body: { ...BEDROCK_JSON, max_tokens: 4096, reasoning: { max_tokens: 2048 } }, field: "response_format" },
  { site: "providers/bedrock/output.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-json-tool", body: { ...BEDROCK_JSON, tools: [CHAT_FN] }, field: "response_format" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-llama", otherPath: true, body: { reasoning: { effort: "high" } }, field: "reasoning" },
  { site: "providers/bedrock/reasoning.ts", format: "messages", adapter: "bedrock", model: "conf/bedrock-llama", otherPath: true, body: { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } }, field: "reasoning" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 4096, reasoning: { max_tokens: 200 } }, field: "reasoning.max_tokens" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 1000, reasoning: { max_tokens: 2000 } }, field: "reasoning" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 3000, reasoning: { max_tokens: 5000 } }, field: "reasoning.max_tokens" },
  { site: "providers/bedrock/reasoning.ts", format: "messages", adapter: "bedrock", body: { max_tokens: 4096, output_config: { effort: "minimal" } }, field: "output_config.effort" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, temperature: 0.2 }, field: "temperature" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, top_k: 5 }, field: "top_k" },
  { site: "providers/bedrock/reasoning.ts", format: "chat", adapter: "bedrock", body: { max_tokens: 4096, reasoning: { max_tokens: 2048 }, top_p: 0.5 }, field: "top_p" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-llama", otherPath: true, body: { top_k: 5 }, field: "top_k" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { seed: 7 }, field: "seed" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { frequency_penalty: 0.1 }, field: "frequency_penalty" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { logprobs: true }, field: "logprobs" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { metadata: { note: "x".repeat(300) } }, field: "metadata" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { user: "end-user-42" }, field: "user" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { safety_identifier: "end-user-7" }, field: "safety_identifier" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", model: "conf/bedrock-scale", body: { service_tier: "scale" }, field: "service_tier" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { prompt_cache_key: "pck" }, field: "prompt_cache_key" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { prompt_cache_options: { mode: "explicit", ttl: "1h" } }, field: "prompt_cache_options" },
  { site: "providers/bedrock/request.ts", format: "messages", adapter: "bedrock", body: { speed: "fast" }, field: "speed" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { modalities: ["text", "image"] }, field: "modalities" },
  { site: "providers/bedrock/request.ts", format: "chat", adapter: "bedrock", body: { messages: [{ role: "user", content: Q, name: "alice" }] }, field: "messages.name" },
  { site: "providers/bedrock/request.ts", format: "responses", adapter: "bedrock", body: { tools: [{ ...FN, async: true }] }, field: "tools[0].async" },
  { site: "providers/bedrock/request.ts", format: "responses", adapter: "bedrock", body: { truncation: "auto" }, field: "passthrough.truncation" },
  { site: "providers/bedrock/tools.ts", format: "chat", adapter: "bedrock", body: { tools: [CHAT_FN], parallel_tool_calls: false }, field: "parallel_tool_calls" },
  { site: "providers/bedrock/tools.ts", format: "responses", adapter: "bedrock", body: { tools: [FN], parallel_tool_calls: false }, field: "parallel_tool_calls" },
  { site: "providers/bedrock/tools.ts", format: "chat", adapter: "bedrock", body: { tools: [CHAT_FN], tool_choice: "none", messages: chatToolHistory }, field: "tool_choice" },
  { site: "providers/bedrock/tools.ts", format: "messages", adapter: "bedrock", body: { tools: [MSG_FN, { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }] }, field: "tools[1]" },
  { site: "providers/bedrock/tools.ts", format: "responses", adapter: "bedrock", model: "conf/bedrock-json-tool", body: { tools: [{ ...FN, strict: true }] }, field: "tools[0].strict" },
];


/** Azure OpenAI: what its chat completions' schema refuses (providers/azure/request.ts). */
const AZURE: Row[] = [
  { site: "providers/azure/request.ts", format: "chat", adapter: "azure", body: { top_k: 5 }, field: "top_k" },
  {
    site: "providers/azure/request.ts",
    format: "responses",
    adapter: "azure",
    body: responsesReplay([{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Easy." }], encrypted_content: "enc" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris." }] }]),
    field: "messages.assistant.reasoning",
  },
];

/** Google Vertex AI: what Claude on Vertex does not take (providers/vertex/request.ts). */
const VERTEX: Row[] = [
  { site: "providers/vertex/request.ts", format: "messages", adapter: "vertex-anthropic", body: { speed: "fast" }, field: "speed" },
  { site: "providers/vertex/request.ts", format: "messages", adapter: "vertex-anthropic", body: { mcp_servers: [{ type: "url", url: "https://mcp.example.com/sse", name: "example" }] }, field: "mcp_servers" },
];

export const ROWS: Row[] = [...DECODERS, ...OPENAI, ...RESPONSES, ...ANTHROPIC, ...GEMINI, ...BEDROCK, ...AZURE, ...VERTEX];

/**
 * Sites no inbound format can reach: defensive branches for canonical shapes no decoder produces (a plugin could),
 * and server tools the agent loop declares to the model as functions before any adapter sees them.
 */
export const UNREACHABLE: Unreachable[] = [
  { site: "providers/openai/request.ts", field: "tools[i]", why: "gateway server tools reach adapters as functions; native ones are refused (400) before" },
  { site: "providers/openai/request.ts", field: "model/stream/n…", why: "no decoder puts an adapter-owned key into the passthrough" },
  { site: "providers/openai/messages.ts", field: "messages.tool.content", why: "decoders put only tool results into tool messages" },
  { site: "providers/openai-responses/input.ts", field: "messages[i].<part>", why: "user turns hold text, images, files, refusals and tool results only, all carried" },
  { site: "providers/openai-responses/request.ts", field: "tools[i]", why: "gateway server tools reach adapters as functions; native web search is translated" },
  { site: "providers/anthropic/request.ts", field: "tools[i]", why: "gateway server tools reach adapters as functions; native web search is translated" },
  { site: "providers/anthropic/messages.ts", field: "messages.assistant.server-tool", why: "replayed service:* items reach adapters as function calls and results; a Messages client's own web search blocks travel to Anthropic as sent" },
  { site: "providers/gemini/request.ts", field: "tools[i]", why: "gateway server tools reach adapters as functions; native ones are refused (400) before" },
];

/**
 * Sites of the retrieval routes (embeddings and rerank), whose bodies are not chat conversations: each is checked the
 * same way (200 with the warning, then 422 with nothing sent) by the test named here.
 */
export const RETRIEVAL_SITES: Array<{ site: string; field: string; test: string }> = [
  // The unknown-field site the chat and Messages rows reach too; the test sends an unknown field to each route.
  { site: "core/formats/shared/unknown-fields.ts", field: "<unknown field>", test: "test/integration/embeddings/pipeline.test.ts" },
  { site: "providers/openai/kinds/mistral-embed.ts", field: "user", test: "test/integration/embeddings/openai-kinds.test.ts" },
];

/** Providers the rows' `model` overrides name, beside one per adapter (support/setup.ts). */
export function strictProviders(origin: string) {
  return [
    {
      id: "up-gemini3",
      adapter: "gemini",
      base_url: `${origin}/v1beta`,
      api_key: "AIza-fake-gemini",
      // Gemini 3's behaviour (thinking levels, signature placeholders) on the fixtures' model path.
      options: { thinking_style: "level", signature_placeholder: "always" },
      models: [{ id: "conf/gemini-3", upstream_model: "gemini-2.5-flash" }],
    },
    {
      id: "up-responses-ultrafast",
      adapter: "openai-responses",
      base_url: `${origin}/v1`,
      api_key: "sk-fake-responses",
      models: [{ id: "conf/responses-ultrafast", upstream_model: "gpt-5", tiers: ["ultrafast"] }],
    },
    ...bedrockStrictProviders(origin),
    ...kindProviders(origin),
  ];
}

/**
 * Bedrock entries: the fixtures' Claude with its structured output asked natively, by a forced tool or not at all
 * (the `structured_output` option), and with a `scale` tier; and a Llama, which takes no reasoning or top_k.
 */
function bedrockStrictProviders(origin: string) {
  const entry = (id: string, models: Array<{ id: string; upstream_model: string; tiers?: string[] }>, options?: Record<string, unknown>) => ({
    id,
    adapter: "bedrock",
    base_url: origin,
    region: REGION,
    credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey },
    ...(options ? { options } : {}),
    models,
  });
  const claude = WIRE.bedrock.upstreamModel;
  return [
    entry("up-bedrock-json-tool", [{ id: "conf/bedrock-json-tool", upstream_model: claude }], { structured_output: "tool" }),
    entry("up-bedrock-no-json", [{ id: "conf/bedrock-no-json", upstream_model: claude }], { structured_output: "none" }),
    entry("up-bedrock-scale", [{ id: "conf/bedrock-scale", upstream_model: claude, tiers: ["scale"] }]),
    entry("up-bedrock-llama", [{ id: "conf/bedrock-llama", upstream_model: "meta.llama3-3-70b-instruct-v1:0" }]),
  ];
}

// ── Kinds of the `openai` adapter: the warnings of their request quirks (providers/openai/kinds/) ─────────────────

/** A provider of a kind on the fake's chat-completions path (the kind's quirks run; the fixture answers). */
function kindProviders(origin: string) {
  return (["groq", "mistral"] as const).map((kind) => ({
    id: `up-openai-${kind}`,
    adapter: "openai",
    kind,
    base_url: `${origin}/v1`,
    api_key: "sk-fake-openai",
    models: [{ id: `conf/openai-${kind}`, upstream_model: "gpt-4.1" }],
  }));
}

ROWS.push(
  { site: "providers/openai/kinds/shared.ts", format: "chat", adapter: "openai", model: "conf/openai-groq", body: { logprobs: true }, field: "logprobs" },
  { site: "providers/openai/kinds/shared.ts", format: "chat", adapter: "openai", model: "conf/openai-groq", body: { messages: [{ role: "user", content: Q, name: "ada" }] }, field: "messages.name" },
  { site: "providers/openai/kinds/mistral.ts", format: "chat", adapter: "openai", model: "conf/openai-mistral", body: { user: "u-1" }, field: "user" },
);
