/** Chat `messages` → canonical system parts and messages (spec "Chat-completions request" `messages`). */
import { errors } from "../../errors.ts";
import type { CacheMark, Message, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from "../../model/parts.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { dataFilePart, urlImagePart } from "../shared/parts.ts";
import { UNKNOWN_REASONING_FORMAT } from "./reasoning-details.ts";
import type { ChatMessage, ChatReasoningDetail, ChatTextContent, ChatUserContentPart } from "./schema-messages.ts";
import { serverToolPartOf } from "./server-tool-calls.ts";

/** The conversation split the way the canonical model holds it: one system list, then role-tagged messages. */
export interface DecodedConversation {
  system: TextPart[];
  messages: Message[];
}

/** Keys each role understands; anything else on a message is reported instead of silently dropped. */
const KNOWN_KEYS: Record<ChatMessage["role"], ReadonlySet<string>> = {
  system: new Set(["role", "content", "name"]),
  developer: new Set(["role", "content", "name"]),
  user: new Set(["role", "content", "name"]),
  assistant: new Set(["role", "content", "name", "refusal", "tool_calls", "server_tool_calls", "reasoning", "reasoning_details"]),
  tool: new Set(["role", "content", "tool_call_id", "name"]),
};

/** Decodes messages in order; system/developer text is hoisted into `system` (warned when mid-conversation). */
export function decodeMessages(input: readonly ChatMessage[], warnings: Warning[]): DecodedConversation {
  const system: TextPart[] = [];
  const messages: Message[] = [];
  input.forEach((message, i) => {
    const path = `messages[${i}]`;
    for (const key of Object.keys(message)) {
      if (KNOWN_KEYS[message.role].has(key)) continue;
      warn(warnings, "unknown_field", `${path}.${key}`, `Unknown message field \`${key}\` was ignored`);
    }
    switch (message.role) {
      case "system":
      case "developer":
        // The canonical model has one system list; a late instruction loses its position, so say so.
        if (messages.length > 0) {
          const text = `A ${message.role} message after the conversation started was moved to the system prompt`;
          warn(warnings, "approximated", path, text);
        }
        if (message.name !== undefined) {
          const text = `\`name\` on a ${message.role} message is not supported and was dropped`;
          warn(warnings, "unsupported_field", `${path}.name`, text);
        }
        system.push(...textParts(message.content));
        return;
      case "user":
        messages.push(withName({ role: "user", parts: userParts(message.content, path) }, message.name));
        return;
      case "assistant":
        messages.push(withName({ role: "assistant", parts: assistantParts(message) }, message.name));
        return;
      case "tool": {
        const content = typeof message.content === "string" ? message.content : textParts(message.content);
        const part: ToolResultPart = { type: "tool-result", callId: message.tool_call_id, content };
        if (message.name !== undefined) part.name = message.name;
        messages.push({ role: "tool", parts: [part] });
        return;
      }
    }
  });
  return { system, messages };
}

function withName(message: Message, name: string | undefined): Message {
  if (name !== undefined) message.name = name;
  return message;
}

function cacheOf(part: { cache_control?: CacheMark }): CacheMark | undefined {
  return part.cache_control === undefined ? undefined : { ...part.cache_control };
}

function textPart(part: ChatTextContent): TextPart {
  const out: TextPart = { type: "text", text: part.text };
  const cache = cacheOf(part);
  if (cache) out.cache = cache;
  return out;
}

function textParts(content: string | readonly ChatTextContent[]): TextPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content.map(textPart);
}

function userParts(content: string | readonly ChatUserContentPart[], path: string): Part[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part, j) => userPart(part, `${path}.content[${j}]`));
}

function userPart(part: ChatUserContentPart, path: string): Part {
  switch (part.type) {
    case "text":
      return textPart(part);
    case "image_url":
      return urlImagePart(part.image_url.url, part.image_url.detail, cacheOf(part));
    case "input_audio": {
      // Audio is carried as a file part with a data: URL, which is what audio-capable upstreams accept.
      const mediaType = `audio/${part.input_audio.format}`;
      return { type: "file", data: `data:${mediaType};base64,${part.input_audio.data}`, mediaType };
    }
    case "file": {
      const data = part.file.file_data ?? part.file.file_id;
      if (data === undefined) throw errors.invalid(`${path}.file needs \`file_data\` or \`file_id\``);
      return dataFilePart(data, part.file.filename, cacheOf(part));
    }
  }
}

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/**
 * Order mirrors generation: server tools the gateway ran (their turns came first; chat flattens the turns, so the
 * calls lead), then reasoning, text/refusal, and tool calls.
 */
function assistantParts(message: AssistantMessage): Part[] {
  const parts: Part[] = (message.server_tool_calls ?? []).map(serverToolPartOf);
  if (message.reasoning_details?.length) parts.push(...reasoningParts(message.reasoning_details));
  else if (message.reasoning) parts.push({ type: "reasoning", text: message.reasoning });
  const content = message.content;
  if (typeof content === "string") {
    // Clients send `""` next to tool calls; an empty text block is rejected by some upstreams, so skip it.
    if (content !== "") parts.push({ type: "text", text: content });
  } else if (content) {
    for (const part of content) {
      parts.push(part.type === "text" ? textPart(part) : { type: "refusal", text: part.refusal });
    }
  }
  if (message.refusal) parts.push({ type: "refusal", text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    // `arguments` stays the exact JSON text sent back: never parsed and re-serialised, so nothing is lost.
    const { name, arguments: args } = call.function;
    const part: ToolCallPart = { type: "tool-call", id: call.id, name, arguments: args };
    parts.push(part);
  }
  return parts;
}

/**
 * `reasoning_details` → reasoning parts. Consecutive details sharing an `id` describe one reasoning item (e.g. an
 * OpenAI summary plus its encrypted content) and are merged, so the item round-trips intact.
 */
export function reasoningParts(details: readonly ChatReasoningDetail[]): ReasoningPart[] {
  const parts: ReasoningPart[] = [];
  for (const detail of details) {
    const last = parts.at(-1);
    const part = last && detail.id && last.id === detail.id ? last : newReasoningPart(detail, parts);
    switch (detail.type) {
      case "reasoning.text":
        part.text += detail.text ?? "";
        if (detail.signature) part.signature = detail.signature;
        break;
      case "reasoning.summary":
        (part.summary ??= []).push(detail.summary);
        break;
      case "reasoning.encrypted":
        // Anthropic's opaque block is `redacted_thinking`; every other family's is encrypted reasoning content.
        if (detail.format?.startsWith("anthropic")) part.redacted = detail.data;
        else part.encrypted = detail.data;
        break;
    }
  }
  return parts;
}

function newReasoningPart(detail: ChatReasoningDetail, parts: ReasoningPart[]): ReasoningPart {
  const part: ReasoningPart = { type: "reasoning", text: "" };
  if (detail.id) part.id = detail.id;
  // `unknown` is what the encoder writes for reasoning of no named family (reasoning-details.ts): no family here.
  if (detail.format && detail.format !== UNKNOWN_REASONING_FORMAT) part.format = detail.format;
  parts.push(part);
  return part;
}
