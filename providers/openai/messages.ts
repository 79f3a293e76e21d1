/**
 * Canonical system + messages → chat-completions `messages`.
 * Tool results become `role: tool` messages wherever the canonical model put them (Messages-format clients send them
 * inside user turns), keeping their order; what chat cannot carry is recorded as a warning.
 */
import type { FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolResultPart, Warning } from "../../core/sdk/index.ts";
import { warnUnsupported } from "../../core/sdk/provider.ts";
import type { WireContentPart, WireMessage, WireReasoningDetail, WireToolCall } from "./wire.ts";

/** Builds the full `messages` array: one system message first (when any), then each canonical message in order. */
export function toWireMessages(system: TextPart[], messages: Message[], warnings: Warning[]): WireMessage[] {
  const out: WireMessage[] = [];
  if (system.length > 0) {
    if (system.some((p) => p.cache !== undefined)) warnCache(warnings);
    // One string rather than an array: many compatible servers (chat templates of vLLM, llama.cpp) require it.
    out.push({ role: "system", content: system.map((p) => p.text).join("\n\n") });
  }
  for (const message of messages) {
    if (message.role === "assistant") appendAssistant(out, message, warnings);
    else appendUserOrTool(out, message, warnings);
  }
  return out;
}

/** User and tool turns: runs of ordinary parts become user messages, each tool result its own tool message. */
function appendUserOrTool(out: WireMessage[], message: Message, warnings: Warning[]): void {
  let run: Part[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    const content = userContent(run, warnings);
    if (message.role === "tool") {
      warnUnsupported(warnings, "messages.tool.content", "Content other than tool results in a tool message is not sent to this upstream");
    } else if (content !== undefined) {
      out.push(message.name === undefined ? { role: "user", content } : { role: "user", content, name: message.name });
    }
    run = [];
  };
  for (const part of message.parts) {
    if (part.type === "tool-result") {
      flush();
      out.push(toolMessage(part, warnings));
    } else run.push(part);
  }
  flush();
}

/** User content: a plain string for a single text part (the most compatible form), else typed parts. */
function userContent(parts: Part[], warnings: Warning[]): string | WireContentPart[] | undefined {
  const wire: WireContentPart[] = [];
  for (const part of parts) {
    if ("cache" in part && part.cache !== undefined) warnCache(warnings);
    switch (part.type) {
      case "text":
        wire.push({ type: "text", text: part.text });
        break;
      case "image":
        wire.push(imagePart(part));
        break;
      case "file":
        wire.push(filePart(part));
        break;
      default:
        warnUnsupported(warnings, `messages.user.${part.type}`, `A ${part.type} part in a user message is not sent to this upstream`);
    }
  }
  if (wire.length === 0) return undefined;
  const only = wire[0];
  return wire.length === 1 && only?.type === "text" ? only.text : wire;
}

function imagePart(part: ImagePart): WireContentPart {
  return { type: "image_url", image_url: part.detail === undefined ? { url: part.url } : { url: part.url, detail: part.detail } };
}

/** data: and http(s) URLs travel in `file_data` (OpenRouter-compatible); anything else is an upstream file id. */
function filePart(part: FilePart): WireContentPart {
  const isInline = /^(data:|https?:\/\/)/i.test(part.data);
  const file: { file_data?: string; file_id?: string; filename?: string } = isInline ? { file_data: part.data } : { file_id: part.data };
  if (part.filename !== undefined) file.filename = part.filename;
  return { type: "file", file };
}

function toolMessage(part: ToolResultPart, warnings: Warning[]): WireMessage {
  if (part.cache !== undefined) warnCache(warnings);
  if (part.isError === true) {
    warnUnsupported(warnings, "tool_result.is_error", "Chat completions has no error flag on tool results; the result is sent as ordinary content");
  }
  if (typeof part.content === "string") return { role: "tool", tool_call_id: part.callId, content: part.content };
  const texts: Array<{ type: "text"; text: string }> = [];
  for (const item of part.content) {
    if (item.type === "text") texts.push({ type: "text", text: item.text });
    else warnUnsupported(warnings, "tool_result.image", "Images inside tool results are not supported by chat completions and were not sent");
  }
  const first = texts[0];
  const content = texts.length === 0 ? "" : texts.length === 1 && first ? first.text : texts;
  return { role: "tool", tool_call_id: part.callId, content };
}

/** Assistant turns: text, refusal, reasoning and tool calls on one message; stray tool results follow it. */
function appendAssistant(out: WireMessage[], message: Message, warnings: Warning[]): void {
  const texts: string[] = [];
  const refusals: string[] = [];
  const calls: WireToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  const results: ToolResultPart[] = [];
  for (const part of message.parts) {
    if ("cache" in part && part.cache !== undefined) warnCache(warnings);
    switch (part.type) {
      case "text":
        texts.push(part.text);
        break;
      case "refusal":
        refusals.push(part.text);
        break;
      case "tool-call":
        // Ids and arguments verbatim: the client echoes the id back and the arguments are the model's own text.
        calls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments } });
        break;
      case "reasoning":
        reasoning.push(part);
        break;
      case "tool-result":
        results.push(part);
        break;
      default:
        warnUnsupported(warnings, `messages.assistant.${part.type}`, `A ${part.type} part in an assistant message is not sent to this upstream`);
    }
  }
  const wire: Extract<WireMessage, { role: "assistant" }> = {
    role: "assistant",
    content: texts.length === 0 ? null : texts.length === 1 ? (texts[0] ?? "") : texts.map((text) => ({ type: "text", text })),
  };
  if (message.name !== undefined) wire.name = message.name;
  if (refusals.length > 0) wire.refusal = refusals.join("");
  if (reasoning.length > 0) {
    const text = reasoning.map((p) => p.text).join("");
    if (text !== "") wire.reasoning = text;
    const details = reasoningDetails(reasoning);
    if (details.length > 0) wire.reasoning_details = details;
  }
  if (calls.length > 0) wire.tool_calls = calls;
  out.push(wire);
  for (const part of results) out.push(toolMessage(part, warnings));
}

/**
 * Reasoning parts → OpenRouter-style `reasoning_details`, so signatures and encrypted reasoning survive a round trip
 * through upstreams that understand them (plain OpenAI ignores the field).
 */
export function reasoningDetails(parts: ReasoningPart[]): WireReasoningDetail[] {
  const details: WireReasoningDetail[] = [];
  const push = (detail: WireReasoningDetail, part: ReasoningPart): void => {
    if (part.id !== undefined) detail.id = part.id;
    if (part.format !== undefined) detail.format = part.format;
    detail.index = details.length;
    details.push(detail);
  };
  for (const part of parts) {
    for (const summary of part.summary ?? []) push({ type: "reasoning.summary", summary }, part);
    if (part.text !== "" || part.signature !== undefined) {
      const detail: WireReasoningDetail = { type: "reasoning.text", text: part.text };
      if (part.signature !== undefined) detail.signature = part.signature;
      push(detail, part);
    }
    if (part.encrypted !== undefined) push({ type: "reasoning.encrypted", data: part.encrypted }, part);
    if (part.redacted !== undefined) push({ type: "reasoning.encrypted", data: part.redacted }, part);
  }
  return details;
}

function warnCache(warnings: Warning[]): void {
  warnUnsupported(warnings, "cache_control", "Cache marks are not supported by chat completions (OpenAI caches prompts automatically) and were not sent");
}
