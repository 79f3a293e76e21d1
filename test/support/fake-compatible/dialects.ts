/**
 * How each kind of OpenAI-compatible server behaves, for the fake (./server.ts): what it refuses (with its own status
 * and error body), how it writes reasoning, tool-call ids, finish reasons, usage and its extra fields, whole and
 * streamed. Taken from each server's documentation and from the errors users report; a request the real server
 * would refuse is refused here too, so a test passes only when the gateway sends what the server accepts.
 */

export type KindName =
  | "deepseek"
  | "mistral"
  | "groq"
  | "cerebras"
  | "together"
  | "fireworks"
  | "xai"
  | "perplexity"
  | "openrouter"
  | "ollama"
  | "vllm"
  | "sglang"
  | "lmstudio"
  | "llamacpp";

export const KIND_NAMES: readonly KindName[] = ["deepseek", "mistral", "groq", "cerebras", "together", "fireworks", "xai", "perplexity", "openrouter", "ollama", "vllm", "sglang", "lmstudio", "llamacpp"];
export const LOCAL_KINDS: readonly KindName[] = ["ollama", "vllm", "sglang", "lmstudio", "llamacpp"];

/** What the model "says", in neutral terms; each dialect writes it its own way. */
export interface Answer {
  text?: string;
  reasoning?: string;
  /** Tool calls; `id` to name one as the server would when it continues a call it was sent. */
  toolCalls?: Array<{ name: string; arguments: string; id?: string }>;
  /** The raw finish reason (default `tool_calls` with tool calls, else `stop`). */
  finish?: string;
  usage?: { prompt: number; completion: number; reasoning?: number; cached?: number };
  /** Perplexity's sources. */
  sources?: Array<{ url: string; title: string; snippet?: string }>;
  /** Fail instead, with this status and body (an error in the server's own dialect). */
  fail?: Refusal;
}

export const DEFAULT_TEXT = "The capital of France is Paris.";
export const DEFAULT_USAGE = { prompt: 20, completion: 9, reasoning: 0, cached: 0 };

type Json = Record<string, unknown>;
export interface Refusal {
  status: number;
  body: unknown;
}

/** The key each cloud kind expects (`Authorization: Bearer sk-<kind>`); local servers take none. */
export const keyOf = (kind: KindName): string => `sk-${kind}`;

const openAiError = (message: string, param: string | null = null, code: string | null = null): Json => ({ error: { message, type: "invalid_request_error", param, code } });

const messages = (body: Json): Json[] => (Array.isArray(body.messages) ? (body.messages as Json[]) : []);
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_details"];

/** The fields each server refuses (400 unless said), checked in order; undefined when it accepts the request. */
export function refusal(kind: KindName, body: Json): Refusal | undefined {
  switch (kind) {
    case "deepseek": {
      const index = messages(body).findIndex((m) => m.role === "assistant" && REASONING_FIELDS.some((f) => f in m));
      if (index >= 0) return { status: 400, body: openAiError(`The reasoning_content is an intermediate result and must not be sent back (messages[${index}])`, null, "invalid_request_error") };
      return undefined;
    }
    case "mistral":
      return mistralRefusal(body);
    case "groq": {
      for (const field of ["logprobs", "top_logprobs", "logit_bias"]) if (field in body) return { status: 400, body: openAiError(`'${field}' : property '${field}' is unsupported, did you mean '${field}'?`, field) };
      if (messages(body).some((m) => m.role !== "tool" && "name" in m)) return { status: 400, body: openAiError("'messages.0' : for 'role:user' the following must be satisfied[('messages.0.name' : property 'name' is unsupported)]") };
      if ("reasoning_format" in body && String(body.model).includes("gpt-oss")) return { status: 400, body: openAiError("reasoning_format is not supported with this model", "reasoning_format") };
      return undefined;
    }
    case "cerebras":
      for (const field of ["frequency_penalty", "presence_penalty", "logit_bias", "parallel_tool_calls", "service_tier"]) {
        if (field in body) return { status: 400, body: { message: `${field} is not supported`, type: "invalid_request_error", param: field, code: "wrong_api_format" } };
      }
      return undefined;
    case "together":
      if ("logprobs" in body && typeof body.logprobs !== "number") return { status: 400, body: openAiError("logprobs must be an integer between 0 and 20", "logprobs") };
      return undefined;
    case "fireworks":
      for (const field of ["presence_penalty", "frequency_penalty", "logit_bias"]) if (field in body) return { status: 400, body: { error: { object: "error", type: "invalid_request_error", message: `${field} is not supported` } } };
      return undefined;
    case "xai": {
      const model = String(body.model);
      if (/grok-3-mini|grok-4/.test(model)) {
        for (const field of ["presence_penalty", "frequency_penalty", "stop"]) {
          if (field in body) return { status: 400, body: { code: "Client specified an invalid argument", error: `Model ${model} does not support parameter ${field}.` } };
        }
        if ("reasoning_effort" in body && !model.includes("grok-3-mini")) {
          return { status: 400, body: { code: "Client specified an invalid argument", error: `Model ${model} does not support parameter reasoningEffort.` } };
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

const MISTRAL_FIELDS = new Set(["model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop", "random_seed", "response_format", "tools", "tool_choice", "presence_penalty", "frequency_penalty", "n", "parallel_tool_calls", "prediction", "prompt_mode", "safe_prompt"]);
const MISTRAL_MESSAGE_FIELDS: Record<string, Set<string>> = {
  system: new Set(["role", "content"]),
  user: new Set(["role", "content"]),
  assistant: new Set(["role", "content", "tool_calls", "prefix"]),
  tool: new Set(["role", "content", "tool_call_id", "name"]),
};
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;

/** Mistral: pydantic `extra="forbid"` (422 with a `detail` list), and its nine-character tool-call ids (400). */
function mistralRefusal(body: Json): Refusal | undefined {
  const detail: Json[] = [];
  for (const [field, value] of Object.entries(body)) if (!MISTRAL_FIELDS.has(field)) detail.push({ type: "extra_forbidden", loc: ["body", field], msg: "Extra inputs are not permitted", input: value });
  messages(body).forEach((m, i) => {
    for (const field of Object.keys(m)) if (!MISTRAL_MESSAGE_FIELDS[String(m.role)]?.has(field)) detail.push({ type: "extra_forbidden", loc: ["body", "messages", i, String(m.role), field], msg: "Extra inputs are not permitted", input: m[field] });
  });
  if (detail.length > 0) return { status: 422, body: { object: "error", message: { detail }, type: "invalid_request_message_error", param: null, code: null } };
  for (const m of messages(body)) {
    const ids = m.role === "assistant" ? ((m.tool_calls as Json[] | undefined) ?? []).map((c) => String(c.id)) : m.role === "tool" ? [String(m.tool_call_id)] : [];
    const bad = ids.find((id) => !MISTRAL_ID.test(id));
    if (bad !== undefined) return { status: 400, body: { object: "error", message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`, type: "invalid_function_call", param: null, code: "3280" } };
  }
  return undefined;
}

/** The 401 each server answers without the right key. */
export function unauthorized(kind: KindName): Refusal {
  if (kind === "mistral") return { status: 401, body: { message: "Unauthorized", request_id: "req_0" } };
  return { status: 401, body: openAiError("Invalid API key", null, "invalid_api_key") };
}

/** Where a kind writes reasoning for this request. */
type ReasoningStyle = "reasoning_content" | "reasoning" | "details" | "think" | "mistral" | "none";

function reasoningStyle(kind: KindName, body: Json): ReasoningStyle {
  switch (kind) {
    case "deepseek":
    case "xai":
    case "fireworks":
    case "vllm":
    case "sglang":
      return "reasoning_content";
    case "groq":
    case "cerebras":
      // Raw by default (inline <think>); `parsed` in `reasoning`; `hidden` none.
      if (body.reasoning_format === "parsed" || body.include_reasoning === true) return "reasoning";
      if (body.reasoning_format === "hidden" || body.include_reasoning === false) return "none";
      return "think";
    case "together":
      return (body.reasoning as Json | undefined)?.enabled === false ? "none" : "reasoning";
    case "openrouter":
      return (body.reasoning as Json | undefined)?.exclude === true ? "none" : "details";
    case "mistral":
      return "mistral";
    case "perplexity":
    case "ollama":
    case "lmstudio":
    case "llamacpp":
      return "think";
  }
}

/** A kind's tool-call id for call `i` of reply `n`. */
function toolCallId(kind: KindName, n: number, i: number): string {
  if (kind === "mistral") return `Mi${String(n).padStart(3, "0")}${String(i).padStart(2, "0")}xY`.slice(0, 9);
  return `call_${kind}_${n}_${i}`;
}

/** The usage object in each server's dialect. */
function usageOf(kind: KindName, answer: Answer): Json {
  const u = { ...DEFAULT_USAGE, ...answer.usage };
  const reasoning = u.reasoning ?? 0;
  const cached = u.cached ?? 0;
  const usage: Json = { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion };
  if (reasoning > 0) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  switch (kind) {
    case "deepseek":
      usage.prompt_cache_hit_tokens = cached;
      usage.prompt_cache_miss_tokens = u.prompt - cached;
      break;
    case "xai":
      // Reasoning apart from the completion; the total counts both.
      usage.completion_tokens = u.completion - reasoning;
      usage.cost_in_usd_ticks = 37_756_000;
      usage.num_sources_used = 0;
      break;
    case "perplexity":
      usage.num_search_queries = 1;
      usage.citation_tokens = 120;
      usage.search_context_size = "low";
      usage.cost = { input_tokens_cost: 0.00002, output_tokens_cost: 0.00001, request_cost: 0.005, total_cost: 0.00503 };
      break;
    case "openrouter":
      usage.cost = 0.000321;
      usage.is_byok = false;
      usage.cost_details = { upstream_inference_cost: null };
      break;
    case "groq":
      usage.queue_time = 0.01;
      usage.prompt_time = 0.002;
      break;
    default:
  }
  return usage;
}

/** The message (or delta) fields of the whole answer. */
function messageOf(kind: KindName, style: ReasoningStyle, answer: Answer, ids: string[]): Json {
  const text = answer.text ?? (answer.toolCalls ? "" : DEFAULT_TEXT);
  const message: Json = { role: "assistant", content: text === "" ? null : text };
  const reasoning = answer.reasoning;
  if (reasoning !== undefined) {
    switch (style) {
      case "reasoning_content":
        message.reasoning_content = reasoning;
        break;
      case "reasoning":
        message.reasoning = reasoning;
        break;
      case "details":
        message.reasoning = reasoning;
        message.reasoning_details = [{ type: "reasoning.text", text: reasoning, signature: "sig-or-1", format: "anthropic-claude-v1", index: 0 }];
        break;
      case "think":
        message.content = `<think>\n${reasoning}\n</think>\n\n${text}`;
        break;
      case "mistral":
        message.content = [{ type: "thinking", thinking: [{ type: "text", text: reasoning }] }, { type: "text", text }];
        break;
      case "none":
    }
  }
  if (answer.toolCalls) message.tool_calls = answer.toolCalls.map((c, i) => ({ id: ids[i], type: "function", function: { name: c.name, arguments: c.arguments } }));
  return message;
}

/** Top-level fields some servers add to the completion and to every chunk. */
function extrasOf(kind: KindName, answer: Answer): Json {
  if (kind === "perplexity" && answer.sources) {
    return { citations: answer.sources.map((s) => s.url), search_results: answer.sources.map((s) => ({ title: s.title, url: s.url, date: "2025-01-01", snippet: s.snippet ?? "" })) };
  }
  if (kind === "openrouter") return { provider: "Anthropic" };
  return {};
}

function finishOf(answer: Answer): string {
  return answer.finish ?? (answer.toolCalls ? "tool_calls" : "stop");
}

/** The whole completion. */
export function completion(kind: KindName, body: Json, answer: Answer, n: number): Json {
  const ids = (answer.toolCalls ?? []).map((c, i) => c.id ?? toolCallId(kind, n, i));
  return {
    id: `cmpl-${kind}-${n}`,
    object: "chat.completion",
    created: 1_750_000_000,
    model: String(body.model),
    ...extrasOf(kind, answer),
    choices: [{ index: 0, message: messageOf(kind, reasoningStyle(kind, body), answer, ids), finish_reason: finishOf(answer), logprobs: null }],
    usage: usageOf(kind, answer),
  };
}

/** Splits text into small pieces, so tags and words are cut across chunks as real streams cut them. */
function pieces(text: string, size = 5): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The stream's chunks (each sent as `data: …`), then `[DONE]`. */
export function chunks(kind: KindName, body: Json, answer: Answer, n: number): Json[] {
  const style = reasoningStyle(kind, body);
  const ids = (answer.toolCalls ?? []).map((c, i) => c.id ?? toolCallId(kind, n, i));
  const base = { id: `cmpl-${kind}-${n}`, object: "chat.completion.chunk", created: 1_750_000_000, model: String(body.model), ...extrasOf(kind, answer) };
  const chunk = (delta: Json, finish: string | null = null): Json => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const out: Json[] = [chunk({ role: "assistant", content: "" })];
  const whole = messageOf(kind, style, answer, ids);
  if (style === "mistral" && Array.isArray(whole.content)) {
    for (const part of whole.content as Json[]) out.push(chunk({ content: [part] }));
  } else {
    for (const field of ["reasoning_content", "reasoning"]) {
      if (typeof whole[field] === "string") for (const p of pieces(whole[field] as string)) out.push(chunk(style === "details" ? { reasoning: p, reasoning_details: [{ type: "reasoning.text", text: p, format: "anthropic-claude-v1", index: 0 }] } : { [field]: p }));
    }
    if (style === "details" && whole.reasoning_details) out.push(chunk({ reasoning_details: [{ type: "reasoning.text", signature: "sig-or-1", format: "anthropic-claude-v1", index: 0 }] }));
    if (typeof whole.content === "string") for (const p of pieces(whole.content)) out.push(chunk({ content: p }));
  }
  (answer.toolCalls ?? []).forEach((call, i) => {
    out.push(chunk({ tool_calls: [{ index: i, id: ids[i], type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const p of pieces(call.arguments, 8)) out.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }));
  });
  const usage = usageOf(kind, answer);
  const finish = chunk({}, finishOf(answer));
  const wantsUsage = (body.stream_options as Json | undefined)?.include_usage === true;
  switch (kind) {
    case "groq":
      // Groq reports streamed usage in `x_groq` of the last chunk.
      out.push({ ...finish, x_groq: { id: `req_${n}`, usage } });
      break;
    case "mistral":
    case "fireworks":
    case "perplexity":
      // Usage with the finish, asked or not.
      out.push({ ...finish, usage });
      break;
    default:
      out.push(finish);
      if (wantsUsage || kind === "openrouter") out.push({ ...base, choices: [], usage });
  }
  return out;
}
