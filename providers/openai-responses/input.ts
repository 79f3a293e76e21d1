/**
 * Canonical messages → Responses `input` items. Assistant turns become output-message items interleaved with
 * `function_call` and `reasoning` items in their original order; tool results become `function_call_output` items
 * keyed by the original call id. What the Responses API cannot carry is recorded as a warning.
 */
import type { FilePart, ImagePart, Message, Part, ReasoningPart, ToolResultPart, Warning } from "../../core/sdk/index.ts";
import { warnUnsupported } from "../../core/sdk/provider.ts";
import type { WireInputContent, WireInputItem } from "./wire.ts";

/** Family tag of reasoning produced by a Responses upstream (canonical `ReasoningPart.format`). */
export const RESPONSES_REASONING_FORMAT = "openai-responses-v1";

/** Translates the conversation; `system` travels separately as `instructions`. */
export function toInputItems(messages: Message[], warnings: Warning[]): WireInputItem[] {
  const items: WireInputItem[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") assistantItems(message.parts, items, warnings, index);
    else userItems(message, items, warnings, index);
  });
  return items;
}

/** User and tool messages: content parts form one user message; tool results become their own items in order. */
function userItems(message: Message, items: WireInputItem[], warnings: Warning[], index: number): void {
  let content: WireInputContent[] = [];
  const flush = () => {
    if (content.length > 0) items.push({ role: "user", content });
    content = [];
  };
  for (const part of message.parts) {
    if (part.type === "tool-result") {
      flush();
      items.push(toolOutput(part, warnings, index));
      continue;
    }
    const entry = userContent(part, warnings, index);
    if (entry) content.push(entry);
  }
  flush();
}

function userContent(part: Part, warnings: Warning[], index: number): WireInputContent | undefined {
  noteCache(part, warnings);
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text };
    case "image":
      return imageContent(part);
    case "file":
      return fileContent(part);
    case "refusal":
      return { type: "input_text", text: part.text };
    default:
      warnUnsupported(warnings, `messages[${index}].${part.type}`, `A ${part.type} part in a user message cannot be sent to a Responses upstream`);
      return undefined;
  }
}

function imageContent(part: ImagePart): WireInputContent {
  return { type: "input_image", image_url: part.url, detail: part.detail ?? "auto" };
}

/** data: URLs travel as `file_data`, http(s) URLs as `file_url`, anything else is a provider file id. */
function fileContent(part: FilePart): WireInputContent {
  if (part.data.startsWith("data:")) return { type: "input_file", file_data: part.data, filename: part.filename ?? "file" };
  const entry: WireInputContent = /^https?:\/\//i.test(part.data) ? { type: "input_file", file_url: part.data } : { type: "input_file", file_id: part.data };
  if (part.filename !== undefined) entry.filename = part.filename;
  return entry;
}

function toolOutput(part: ToolResultPart, warnings: Warning[], index: number): WireInputItem {
  noteCache(part, warnings);
  if (part.isError === true) {
    warnUnsupported(warnings, `messages[${index}].is_error`, "Responses function_call_output has no error flag; the result was sent as plain output");
  }
  if (typeof part.content === "string") return { type: "function_call_output", call_id: part.callId, output: part.content };
  const output = part.content.map((entry) => (entry.type === "text" ? { type: "input_text" as const, text: entry.text } : imageInput(entry)));
  return { type: "function_call_output", call_id: part.callId, output };
}

function imageInput(part: ImagePart): { type: "input_image"; image_url: string; detail: "auto" | "low" | "high" } {
  return { type: "input_image", image_url: part.url, detail: part.detail ?? "auto" };
}

/** Assistant parts in order; consecutive text / refusal parts share one output message. */
function assistantItems(parts: Part[], items: WireInputItem[], warnings: Warning[], index: number): void {
  let content: WireInputContent[] = [];
  const flush = () => {
    if (content.length > 0) items.push({ role: "assistant", content });
    content = [];
  };
  for (const part of parts) {
    switch (part.type) {
      case "text":
        noteCache(part, warnings);
        content.push({ type: "output_text", text: part.text, annotations: part.annotations ?? [] });
        break;
      case "refusal":
        content.push({ type: "refusal", refusal: part.text });
        break;
      case "tool-call": {
        flush();
        const item: WireInputItem = { type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments };
        if (part.itemId !== undefined) item.id = part.itemId;
        items.push(item);
        break;
      }
      case "reasoning": {
        flush();
        const item = reasoningItem(part, warnings, index);
        if (item) items.push(item);
        break;
      }
      default:
        warnUnsupported(warnings, `messages[${index}].${part.type}`, `A ${part.type} part in an assistant message cannot be sent to a Responses upstream`);
    }
  }
  flush();
}

/**
 * Reasoning is carried back only when a stateless upstream can use it: `store` is false, so a reasoning item is
 * meaningful only with its id and its encrypted content (OpenAI answers 404 for an item it would have to look up);
 * reasoning of another family (an Anthropic signature, redacted thinking) means nothing to this upstream.
 */
function reasoningItem(part: ReasoningPart, warnings: Warning[], index: number): WireInputItem | undefined {
  const foreign = part.format !== undefined && part.format !== RESPONSES_REASONING_FORMAT;
  if (part.id === undefined || part.encrypted === undefined || foreign) {
    warnUnsupported(
      warnings,
      `messages[${index}].reasoning`,
      "Reasoning without this provider's item id and encrypted content cannot be replayed to a stateless Responses upstream and was not sent",
    );
    return undefined;
  }
  if (part.signature !== undefined || part.redacted !== undefined) {
    warnUnsupported(warnings, `messages[${index}].reasoning.signature`, "Reasoning signatures are not part of the Responses API and were not sent");
  }
  const item: Extract<WireInputItem, { type: "reasoning" }> = {
    type: "reasoning",
    id: part.id,
    summary: (part.summary ?? []).map((text) => ({ type: "summary_text", text })),
  };
  if (part.text !== "") item.content = [{ type: "reasoning_text", text: part.text }];
  item.encrypted_content = part.encrypted;
  return item;
}

/** Cache marks have no Responses equivalent (OpenAI caches prompts automatically, keyed by `prompt_cache_key`). */
function noteCache(part: Part, warnings: Warning[]): void {
  if ("cache" in part && part.cache !== undefined) {
    warnUnsupported(warnings, "cache_control", "Cache marks are not supported by the Responses API and were not sent");
  }
}
