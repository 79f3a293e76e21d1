/**
 * Fixtures shaped like real OpenAI Responses API traffic (a reasoning model calling a function, store: false with
 * encrypted reasoning): a non-streaming result, an incomplete one, a failed one, and the SSE transcript of the same
 * tool-calling turn as OpenAI sends it (`event:` line, then `data:`; no `[DONE]`).
 */

const RESPONSE_ID = "resp_68a1b2c3d4e5f60718293a4b5c6d7e8f";
const REASONING_ID = "rs_68a1b2c3e1f2a3b4c5d6e7f8091a2b3c";
const MESSAGE_ID = "msg_68a1b2c4f5e6d7c8b9a0f1e2d3c4b5a6";
const CALL_ITEM_ID = "fc_68a1b2c5a6b7c8d9e0f1a2b3c4d5e6f7";
export const CALL_ID = "call_Qx7bN3mVt2LkR9sW";
export const ENCRYPTED = "gAAAAABooRLF3k9vXq1pZr7c_encrypted_reasoning_blob==";

/** The echo part every result repeats. */
const ECHO = {
  background: false,
  instructions: "Be brief.",
  max_output_tokens: 500,
  max_tool_calls: null,
  metadata: {},
  parallel_tool_calls: true,
  previous_response_id: null,
  prompt_cache_key: null,
  reasoning: { effort: "low", summary: "auto" },
  safety_identifier: null,
  service_tier: "default",
  store: false,
  temperature: 1.0,
  text: { format: { type: "text" }, verbosity: "medium" },
  tool_choice: "auto",
  tools: [{ type: "function", name: "get_weather", description: null, parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
  top_logprobs: 0,
  top_p: 1.0,
  truncation: "disabled",
  user: null,
};

const reasoningItem = {
  id: REASONING_ID,
  type: "reasoning",
  encrypted_content: ENCRYPTED,
  summary: [
    { type: "summary_text", text: "**Planning the lookup**\n\nThe user wants Paris weather." },
    { type: "summary_text", text: "**Calling the tool**" },
  ],
};
const messageItem = {
  id: MESSAGE_ID,
  type: "message",
  status: "completed",
  content: [{ type: "output_text", annotations: [], logprobs: [], text: "Let me check." }],
  role: "assistant",
};
const callItem = { id: CALL_ITEM_ID, type: "function_call", status: "completed", arguments: '{"city":"Paris"}', call_id: CALL_ID, name: "get_weather" };

const USAGE = {
  input_tokens: 328,
  input_tokens_details: { cached_tokens: 256 },
  output_tokens: 87,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 415,
};

/** A completed non-streaming result: reasoning, a message, a function call. */
export const RESULT_TOOLS = {
  id: RESPONSE_ID,
  object: "response",
  created_at: 1755189700,
  status: "completed",
  completed_at: 1755189703,
  error: null,
  incomplete_details: null,
  model: "gpt-5-2025-08-07",
  output: [reasoningItem, messageItem, callItem],
  ...ECHO,
  usage: USAGE,
};

/** A result cut by `max_output_tokens`. */
export const RESULT_INCOMPLETE = {
  ...RESULT_TOOLS,
  status: "incomplete",
  completed_at: null,
  incomplete_details: { reason: "max_output_tokens" },
  output: [{ ...messageItem, status: "incomplete", content: [{ type: "output_text", annotations: [], text: "Once upon a" }] }],
  usage: { ...USAGE, output_tokens: 16, output_tokens_details: { reasoning_tokens: 0 } },
};

/** A failed result. */
export const RESULT_FAILED = {
  ...RESULT_TOOLS,
  status: "failed",
  completed_at: null,
  output: [],
  error: { code: "rate_limit_exceeded", message: "Rate limit reached for requests" },
  usage: null,
};

/** OpenAI's SSE framing: the event name line, then the JSON. */
export function sse(events: Array<Record<string, unknown>>): string[] {
  return events.map((event, i) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`);
}

const inProgress = { ...RESULT_TOOLS, status: "in_progress", completed_at: null, output: [], usage: null };
const at = (output_index: number, item_id: string) => ({ item_id, output_index });

/** The streamed transcript of RESULT_TOOLS (two summary parts, obfuscation fields included as OpenAI sends them). */
export const STREAM_TOOLS: Array<Record<string, unknown>> = [
  { type: "response.created", response: inProgress },
  { type: "response.in_progress", response: inProgress },
  { type: "response.output_item.added", output_index: 0, item: { id: REASONING_ID, type: "reasoning", encrypted_content: "gAAAAABooRLFpartial", summary: [] } },
  { type: "response.reasoning_summary_part.added", ...at(0, REASONING_ID), summary_index: 0, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", ...at(0, REASONING_ID), summary_index: 0, delta: "**Planning the lookup**", obfuscation: "a1b2" },
  { type: "response.reasoning_summary_text.delta", ...at(0, REASONING_ID), summary_index: 0, delta: "\n\nThe user wants Paris weather.", obfuscation: "c3" },
  { type: "response.reasoning_summary_text.done", ...at(0, REASONING_ID), summary_index: 0, text: reasoningItem.summary[0]?.text },
  { type: "response.reasoning_summary_part.done", ...at(0, REASONING_ID), summary_index: 0, part: reasoningItem.summary[0] },
  { type: "response.reasoning_summary_part.added", ...at(0, REASONING_ID), summary_index: 1, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", ...at(0, REASONING_ID), summary_index: 1, delta: "**Calling the tool**", obfuscation: "d4" },
  { type: "response.reasoning_summary_text.done", ...at(0, REASONING_ID), summary_index: 1, text: "**Calling the tool**" },
  { type: "response.reasoning_summary_part.done", ...at(0, REASONING_ID), summary_index: 1, part: reasoningItem.summary[1] },
  { type: "response.output_item.done", output_index: 0, item: reasoningItem },
  { type: "response.output_item.added", output_index: 1, item: { id: MESSAGE_ID, type: "message", status: "in_progress", content: [], role: "assistant" } },
  { type: "response.content_part.added", ...at(1, MESSAGE_ID), content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } },
  { type: "response.output_text.delta", ...at(1, MESSAGE_ID), content_index: 0, delta: "Let me", logprobs: [], obfuscation: "x" },
  { type: "response.output_text.delta", ...at(1, MESSAGE_ID), content_index: 0, delta: " check.", logprobs: [], obfuscation: "y" },
  { type: "response.output_text.done", ...at(1, MESSAGE_ID), content_index: 0, text: "Let me check.", logprobs: [] },
  { type: "response.content_part.done", ...at(1, MESSAGE_ID), content_index: 0, part: messageItem.content[0] },
  { type: "response.output_item.done", output_index: 1, item: messageItem },
  { type: "response.output_item.added", output_index: 2, item: { ...callItem, status: "in_progress", arguments: "" } },
  { type: "response.function_call_arguments.delta", ...at(2, CALL_ITEM_ID), delta: '{"city":', obfuscation: "z" },
  { type: "response.function_call_arguments.delta", ...at(2, CALL_ITEM_ID), delta: '"Paris"}', obfuscation: "w" },
  { type: "response.function_call_arguments.done", ...at(2, CALL_ITEM_ID), arguments: '{"city":"Paris"}' },
  { type: "response.output_item.done", output_index: 2, item: callItem },
  { type: "response.completed", response: RESULT_TOOLS },
];

export const IDS = { RESPONSE_ID, REASONING_ID, MESSAGE_ID, CALL_ITEM_ID };
