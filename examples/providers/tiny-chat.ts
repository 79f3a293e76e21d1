/**
 * An example third-party provider adapter that calls a real upstream over HTTP: a chat-completions server (any
 * OpenAI-compatible one; the tests point it at the gateway's HTTP simulator on loopback). It imports only the public
 * SDK entries: the contracts and the canonical model from `inference-gateway/sdk`, and from the provider kit
 * `inference-gateway/sdk/provider` the upstream HTTP client (`postJson` answers with the 2xx reply or throws the
 * upstream's error as a GatewayError routing can act on), the SSE parser and the in-band stream failures. It carries
 * text, function tools, reasoning text, usage and streaming; anything else in a request is warned about or refused,
 * never dropped in silence. It passes the adapter conformance kit (test/conformance/kit.test.ts). Loaded by path:
 *
 *     { "extensions": ["./tiny-chat.ts"],
 *       "providers": [{ "id": "mine", "adapter": "tiny-chat", "base_url": "http://127.0.0.1:8001/v1", "models": [{ "id": "mine/small" }] }] }
 */
import { defineProvider } from "inference-gateway/sdk";
import type { CanonicalResponse, EventStream, FinishReason, Part, ProviderCall, StreamEvent, Usage } from "inference-gateway/sdk";
import {
  bearerHeaders,
  emptyUsage,
  parseJsonObject,
  parseSse,
  postJson,
  readJsonObject,
  refuseNativeServerTools,
  shapelessStream,
  streamBody,
  streamInterrupted,
  streamReadFailure,
  unexpectedBody,
  warnUnsupported,
} from "inference-gateway/sdk/provider";

interface WireToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface WireMessage {
  content?: string | null;
  reasoning?: string | null;
  tool_calls?: WireToolCall[] | null;
}
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}
/** A whole completion (`message`) or one stream chunk (`delta`). */
interface WireCompletion {
  id?: string;
  model?: string;
  created?: number;
  choices?: Array<{ message?: WireMessage; delta?: WireMessage; finish_reason?: string | null }>;
  usage?: WireUsage | null;
}

const FINISH: Record<string, FinishReason> = { stop: "stop", length: "length", tool_calls: "tool_calls", content_filter: "content_filter" };

/** The request body: what chat completions can carry, a warning (`call.warn`) for each part it cannot. */
function bodyOf(call: ProviderCall, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const request = call.request;
  refuseNativeServerTools(request.tools, "tiny-chat");
  const messages: Array<Record<string, unknown>> = [];
  const system = request.system.map((part) => part.text).join("\n");
  if (system !== "") messages.push({ role: "system", content: system });
  request.messages.forEach((message, i) => {
    const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const calls = message.parts.flatMap((part) => (part.type === "tool-call" ? [{ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments } }] : []));
    for (const part of message.parts) {
      if (part.type === "tool-result") messages.push({ role: "tool", tool_call_id: part.callId, content: typeof part.content === "string" ? part.content : part.content.map((p) => (p.type === "text" ? p.text : "")).join("") });
      else if (part.type !== "text" && part.type !== "tool-call" && part.type !== "reasoning") warnUnsupported(call, `messages[${i}].${part.type}`, `tiny-chat sends text only; a ${part.type} part was not sent`);
    }
    if (message.role !== "tool") messages.push(calls.length > 0 ? { role: message.role, content: text || null, tool_calls: calls } : { role: message.role, content: text });
  });
  const body: Record<string, unknown> = { model: upstreamModel, messages, stream };
  if (stream) body.stream_options = { include_usage: true };
  const tools = request.tools.flatMap((tool) => (tool.kind === "function" ? [{ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters ?? { type: "object" } } }] : []));
  if (tools.length > 0) body.tools = tools;
  const choice = request.toolChoice;
  if (tools.length > 0 && choice) body.tool_choice = choice.type === "tool" ? { type: "function", function: { name: choice.name } } : choice.type;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.sampling.temperature !== undefined) body.temperature = request.sampling.temperature;
  return body;
}

function usageOf(wire: WireUsage | null | undefined): Usage {
  if (!wire) return emptyUsage();
  return {
    input: { total: wire.prompt_tokens ?? 0, cacheRead: wire.prompt_tokens_details?.cached_tokens ?? 0, cacheWrite: 0 },
    output: { total: wire.completion_tokens ?? 0, reasoning: wire.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
}

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = bodyOf(call, call.target.upstreamModel, stream);
  call.onUpstreamBody?.(body);
  return postJson(call, `${call.target.baseUrl.replace(/\/+$/, "")}/chat/completions`, body, bearerHeaders(call));
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  const wire = await readJsonObject<WireCompletion>(call, await send(call, false));
  const choice = wire.choices?.[0];
  if (!choice?.message) throw unexpectedBody(call, "no choices[0].message");
  const { message } = choice;
  const parts: Part[] = [];
  if (message.reasoning) parts.push({ type: "reasoning", text: message.reasoning });
  if (message.content) parts.push({ type: "text", text: message.content });
  for (const tool of message.tool_calls ?? []) parts.push({ type: "tool-call", id: tool.id ?? call.helpers.id("call_"), name: tool.function?.name ?? "", arguments: tool.function?.arguments ?? "" });
  const raw = choice.finish_reason ?? "stop";
  return {
    id: wire.id ?? call.helpers.id("tiny-"),
    model: wire.model ?? call.target.upstreamModel,
    provider: call.target.providerId,
    created: wire.created ?? Math.floor(call.helpers.now() / 1000),
    parts,
    finish: { reason: FINISH[raw] ?? "other", raw },
    usage: usageOf(wire.usage),
    warnings: [],
  };
}

/**
 * Chunks → canonical events. One part is open at a time (reasoning, then text or tool calls: chat-completions servers
 * stream parallel calls one after another); a read failure, a malformed chunk or a stream cut before its finish ends
 * the stream with an `error` event, never a silent truncation.
 */
async function* eventsOf(call: ProviderCall, body: ReadableStream<Uint8Array>): EventStream {
  let open: { kind: "text" | "reasoning" | "tool-call"; id: string } | undefined;
  const close = (): StreamEvent[] => {
    const ending: StreamEvent[] = [];
    if (open) ending.push(open.kind === "text" ? { type: "text-end", id: open.id } : open.kind === "reasoning" ? { type: "reasoning-end", id: open.id } : { type: "tool-call-end", id: open.id });
    open = undefined;
    return ending;
  };
  const enter = (kind: "text" | "reasoning", id: string): StreamEvent[] => {
    if (open?.id === id) return [];
    const events = close();
    open = { kind, id };
    events.push(kind === "text" ? { type: "text-start", id } : { type: "reasoning-start", id });
    return events;
  };
  let started = false;
  let finish: string | undefined;
  let usage: Usage | undefined;
  const toolIds: string[] = [];
  try {
    for await (const sse of parseSse(body)) {
      if (sse.data === "[DONE]") break;
      const chunk = parseJsonObject<WireCompletion>(sse.data);
      if (chunk === undefined) {
        yield { type: "error", error: streamInterrupted(call, "Upstream sent a chunk that is not a JSON object") };
        return;
      }
      if (!started) {
        started = true;
        yield { type: "start", id: chunk.id ?? call.helpers.id("tiny-"), model: chunk.model ?? call.target.upstreamModel, provider: call.target.providerId, created: chunk.created ?? Math.floor(call.helpers.now() / 1000) };
      }
      const choice = chunk.choices?.[0];
      const delta = choice?.delta;
      if (delta?.reasoning) {
        yield* enter("reasoning", "r0");
        yield { type: "reasoning-delta", id: "r0", delta: delta.reasoning };
      }
      if (delta?.content) {
        yield* enter("text", "t0");
        yield { type: "text-delta", id: "t0", delta: delta.content };
      }
      for (const piece of delta?.tool_calls ?? []) {
        const index = piece.index ?? 0;
        if (piece.id && toolIds[index] === undefined) {
          toolIds[index] = piece.id;
          yield* close();
          open = { kind: "tool-call", id: piece.id };
          yield { type: "tool-call-start", id: piece.id, name: piece.function?.name ?? "" };
        }
        const id = toolIds[index];
        if (id !== undefined && piece.function?.arguments) yield { type: "tool-call-delta", id, delta: piece.function.arguments };
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = usageOf(chunk.usage);
    }
  } catch (thrown) {
    yield { type: "error", error: streamReadFailure(call, thrown) };
    return;
  }
  if (!started) {
    yield { type: "error", error: shapelessStream(call) };
    return;
  }
  if (finish === undefined) {
    yield { type: "error", error: streamInterrupted(call, "Upstream stream ended before its finish") };
    return;
  }
  yield* close();
  yield { type: "finish", finish: { reason: FINISH[finish] ?? "other", raw: finish } };
  yield { type: "usage", usage: usage ?? emptyUsage() };
}

export default defineProvider({
  id: "tiny-chat",
  description: "A chat-completions upstream over HTTP (example third-party adapter built on the provider kit).",
  generate,
  async stream(call) {
    // Resolves once the upstream accepted the request: an HTTP error throws here, where routing can still fall back.
    return eventsOf(call, streamBody(call, await send(call, true)));
  },
});
