/**
 * Azure OpenAI's answers in its wire shapes: chat completions (with `prompt_filter_results` and per-choice
 * `content_filter_results`; streamed with the leading prompt-annotation chunk of empty id and model, then Azure's
 * buffered content chunks, the finish chunk and the usage chunk) and the Responses API (OpenAI's result and events,
 * with Azure's `content_filters`). A content-filter cut is `finish_reason: "content_filter"` on chat (its last chunk
 * an annotation of empty id, as Azure sends it) and `status: "incomplete"`, `incomplete_details.reason:
 * "content_filter"` on Responses.
 */
import type { SseFrame } from "../fake-upstream/sse.ts";
import { COMPLETION_FILTERED, COMPLETION_SAFE, promptFilterResults, responsesContentFilters } from "./filters.ts";

export interface Answer {
  /** The text; when `finish` is `content_filter`, the part that got out before the cut. */
  text?: string;
  /** Reasoning text (chat: `reasoning_content`, as reasoning models on Azure's v1 API return it; Responses: a summary). */
  reasoning?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  finish: "stop" | "length" | "tool_calls" | "content_filter";
  usage: { prompt: number; completion: number; cached?: number; reasoning?: number };
  /** Streamed: fail after the text with an in-band error instead of finishing. */
  failMidStream?: boolean;
}

export interface Identity {
  id: string;
  model: string;
  created: number;
}

/** Text in the pieces a stream sends it in (two words each). */
function pieces(text: string): string[] {
  const words = text.split(/(?=\s)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(""));
  return out;
}

const chatUsage = (u: Answer["usage"]) => ({
  completion_tokens: u.completion,
  completion_tokens_details: { accepted_prediction_tokens: 0, audio_tokens: 0, reasoning_tokens: u.reasoning ?? 0, rejected_prediction_tokens: 0 },
  prompt_tokens: u.prompt,
  prompt_tokens_details: { audio_tokens: 0, cached_tokens: u.cached ?? 0 },
  total_tokens: u.prompt + u.completion,
});

const wireCalls = (answer: Answer) => answer.toolCalls?.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));

export function chatCompletion(answer: Answer, who: Identity): Record<string, unknown> {
  const filtered = answer.finish === "content_filter";
  const message: Record<string, unknown> = { annotations: [], content: answer.text ?? null, refusal: null, role: "assistant" };
  if (answer.reasoning !== undefined) message.reasoning_content = answer.reasoning;
  const calls = wireCalls(answer);
  if (calls) message.tool_calls = calls;
  return {
    choices: [{ content_filter_results: filtered ? COMPLETION_FILTERED : COMPLETION_SAFE, finish_reason: answer.finish, index: 0, logprobs: null, message }],
    created: who.created,
    id: who.id,
    model: who.model,
    object: "chat.completion",
    prompt_filter_results: promptFilterResults(),
    system_fingerprint: "fp_ee1d74bde0",
    usage: chatUsage(answer.usage),
  };
}

export function chatFrames(answer: Answer, who: Identity, includeUsage: boolean): SseFrame[] {
  const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): SseFrame => ({
    data: { choices: choice ? [choice] : [], created: who.created, id: who.id, model: who.model, object: "chat.completion.chunk", system_fingerprint: "fp_ee1d74bde0", ...extra },
  });
  const delta = (d: Record<string, unknown>, annotated = true) => ({ ...(annotated ? { content_filter_results: COMPLETION_SAFE } : {}), delta: d, finish_reason: null, index: 0, logprobs: null });
  const frames: SseFrame[] = [
    // Azure's first chunk: the prompt's annotations, no choice, empty identity.
    { data: { choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: promptFilterResults() } },
    chunk(delta({ content: "", refusal: null, role: "assistant" }, false)),
  ];
  if (answer.reasoning !== undefined) for (const piece of pieces(answer.reasoning)) frames.push(chunk(delta({ reasoning_content: piece })));
  if (answer.text !== undefined) for (const piece of pieces(answer.text)) frames.push(chunk(delta({ content: piece })));
  (answer.toolCalls ?? []).forEach((call, index) => {
    frames.push(chunk(delta({ tool_calls: [{ function: { arguments: "", name: call.name }, id: call.id, index, type: "function" }] }, false)));
    const half = Math.ceil(call.arguments.length / 2);
    for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      frames.push(chunk(delta({ tool_calls: [{ function: { arguments: part }, index }] }, false)));
    }
  });
  if (answer.failMidStream) {
    frames.push({ data: { error: { code: "InternalServerError", message: "The server had an error processing your request." } } });
    return frames;
  }
  if (answer.finish === "content_filter") {
    // The cut: an annotation of empty identity that names the filtered category and ends the choice.
    frames.push({
      data: {
        choices: [{ content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 64 }, content_filter_results: COMPLETION_FILTERED, finish_reason: "content_filter", index: 0 }],
        created: 0,
        id: "",
        model: "",
        object: "",
      },
    });
  } else {
    frames.push(chunk({ content_filter_results: {}, delta: {}, finish_reason: answer.finish, index: 0, logprobs: null }));
  }
  if (includeUsage) frames.push(chunk(undefined, { usage: chatUsage(answer.usage) }));
  frames.push({ data: "[DONE]" });
  return frames;
}

const responsesUsage = (u: Answer["usage"]) => ({
  input_tokens: u.prompt,
  input_tokens_details: { cached_tokens: u.cached ?? 0 },
  output_tokens: u.completion,
  output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  total_tokens: u.prompt + u.completion,
});

/** The output items of a finished answer (reasoning, message, function calls). */
function outputItems(answer: Answer, who: Identity): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  if (answer.reasoning !== undefined) {
    items.push({ id: `rs_${who.id}`, type: "reasoning", summary: [{ type: "summary_text", text: answer.reasoning }], encrypted_content: `enc_${who.id}` });
  }
  if (answer.text !== undefined) {
    const status = answer.finish === "content_filter" ? "incomplete" : "completed";
    items.push({ id: `msg_${who.id}`, type: "message", status, content: [{ type: "output_text", annotations: [], logprobs: [], text: answer.text }], role: "assistant" });
  }
  for (const call of answer.toolCalls ?? []) {
    items.push({ id: `fc_${call.id}`, type: "function_call", status: "completed", arguments: call.arguments, call_id: call.id, name: call.name });
  }
  return items;
}

function responseObject(answer: Answer, who: Identity, state: "in_progress" | "final"): Record<string, unknown> {
  const cut = answer.finish === "content_filter";
  const length = answer.finish === "length";
  const status = state === "in_progress" ? "in_progress" : cut || length ? "incomplete" : "completed";
  return {
    id: `resp_${who.id}`,
    object: "response",
    created_at: who.created,
    status,
    background: false,
    content_filters: state === "final" ? responsesContentFilters(cut ? COMPLETION_FILTERED : COMPLETION_SAFE, cut) : [],
    error: null,
    incomplete_details: status === "incomplete" ? { reason: cut ? "content_filter" : "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: null,
    model: who.model,
    output: state === "final" ? outputItems(answer, who) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: null },
    service_tier: "default",
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: state === "final" ? responsesUsage(answer.usage) : null,
    user: null,
    metadata: {},
  };
}

export function responsesResult(answer: Answer, who: Identity): Record<string, unknown> {
  return responseObject(answer, who, "final");
}

export function responsesFrames(answer: Answer, who: Identity): SseFrame[] {
  let sequence = 0;
  const frames: SseFrame[] = [];
  const event = (type: string, fields: Record<string, unknown>) => frames.push({ data: { type, ...fields, sequence_number: sequence++ } });
  event("response.created", { response: responseObject(answer, who, "in_progress") });
  event("response.in_progress", { response: responseObject(answer, who, "in_progress") });
  const items = outputItems(answer, who);
  items.forEach((item, output_index) => {
    const id = item.id as string;
    if (item.type === "message") {
      event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      event("response.content_part.added", { item_id: id, output_index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
      for (const delta of pieces(answer.text ?? "")) event("response.output_text.delta", { item_id: id, output_index, content_index: 0, delta, logprobs: [] });
      if (answer.failMidStream) return;
      event("response.output_text.done", { item_id: id, output_index, content_index: 0, text: answer.text, logprobs: [] });
      event("response.content_part.done", { item_id: id, output_index, content_index: 0, part: (item.content as unknown[])[0] });
    } else if (item.type === "function_call") {
      event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      event("response.function_call_arguments.delta", { item_id: id, output_index, delta: item.arguments });
      event("response.function_call_arguments.done", { item_id: id, output_index, arguments: item.arguments });
    } else {
      event("response.output_item.added", { output_index, item: { ...item, summary: [] } });
    }
    event("response.output_item.done", { output_index, item });
  });
  if (answer.failMidStream) {
    const failed = { ...responseObject(answer, who, "in_progress"), status: "failed", error: { code: "server_error", message: "The server had an error processing your request." } };
    event("response.failed", { response: failed });
    return frames;
  }
  const final = responseObject(answer, who, "final");
  event(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  return frames;
}
