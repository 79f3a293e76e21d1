/**
 * Responses `input` (string or items) → canonical system parts and messages (spec "Responses request", input items).
 * Consecutive assistant-side items (output messages, function calls, reasoning) merge into one assistant message,
 * because every upstream family models one assistant turn as one message with ordered parts.
 */
import { errors } from "../../errors.ts";
import type {
  CacheMark,
  FilePart,
  ImagePart,
  Message,
  Part,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from "../../model/parts.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { dataFilePart, urlImagePart } from "../shared/parts.ts";
import { isPlainObject } from "../shared/server-tool-fields.ts";
import { replayedServerToolPart } from "../shared/server-tool-part.ts";
import { isServiceSpelling } from "../shared/tool-spelling.ts";
import type {
  FunctionCallItem,
  FunctionCallOutputItem,
  InputFile,
  InputImage,
  InputItem,
  MessageContent,
  MessageItem,
  ReasoningItem,
  ServerToolItem,
} from "./schema-items.ts";
import { isGatewayItemId } from "./output-items.ts";

/** What `input` decodes into; `system` follows `instructions` in the final request. */
export interface DecodedInput {
  system: TextPart[];
  messages: Message[];
}

/** Decodes `input`; throws `invalid_request` naming the field when an item cannot be translated. */
export function decodeInput(input: string | InputItem[] | undefined, warnings: Warning[]): DecodedInput {
  const out: DecodedInput = { system: [], messages: [] };
  if (input === undefined) return out;
  if (typeof input === "string") {
    out.messages.push({ role: "user", parts: [{ type: "text", text: input }] });
    return out;
  }
  let hoistWarned = false;
  input.forEach((item, index) => {
    const field = `input[${index}]`;
    if (isMessage(item)) {
      if (item.role === "system" || item.role === "developer") {
        if (out.messages.length > 0 && !hoistWarned) {
          hoistWarned = true;
          warn(warnings, "approximated", field, "system/developer messages after the conversation started are moved to the system prompt");
        }
        out.system.push(...systemParts(item, field, warnings));
        return;
      }
      const parts = contentParts(item.content, field, warnings);
      if (item.role === "assistant") appendAssistant(out.messages, parts);
      else out.messages.push({ role: "user", parts });
      return;
    }
    switch (item.type) {
      case "function_call": {
        const call = item as FunctionCallItem;
        const part: ToolCallPart = { type: "tool-call", id: call.call_id, name: call.name, arguments: call.arguments };
        if (typeof call.id === "string" && call.id !== "" && call.id !== call.call_id && !isGatewayItemId(call.id)) part.itemId = call.id;
        appendAssistant(out.messages, [part]);
        return;
      }
      case "function_call_output":
        out.messages.push({ role: "tool", parts: [toolResult(item as FunctionCallOutputItem, field, warnings)] });
        return;
      case "reasoning":
        appendAssistant(out.messages, [reasoningPart(item as ReasoningItem)]);
        return;
      default:
        if (isServiceSpelling(item.type)) appendAssistant(out.messages, [serverToolPart(item as ServerToolItem)]);
        else if (item.type === "web_search_call" && isWebSearchCall(item)) appendAssistant(out.messages, [webSearchCallPart(item)]);
        else warn(warnings, "unsupported_item", field, `input item of type ${item.type} cannot be carried and was dropped`);
    }
  });
  return out;
}

function isMessage(item: InputItem): item is MessageItem {
  return "role" in item && (item.type === undefined || item.type === "message");
}

/** Adds parts to the trailing assistant message, or starts one. */
function appendAssistant(messages: Message[], parts: Part[]): void {
  const last = messages[messages.length - 1];
  if (last?.role === "assistant") last.parts.push(...parts);
  else messages.push({ role: "assistant", parts });
}

function systemParts(item: MessageItem, field: string, warnings: Warning[]): TextPart[] {
  if (typeof item.content === "string") return [{ type: "text", text: item.content }];
  const parts: TextPart[] = [];
  item.content.forEach((content, index) => {
    if (content.type === "input_text") parts.push(textPart(content.text, cacheOf(content)));
    else if (content.type === "output_text") parts.push(textPart(content.text, undefined));
    else warn(warnings, "unsupported_content", `${field}.content[${index}]`, `${content.type} in a ${item.role} message was dropped: system prompts carry text only`);
  });
  return parts;
}

/** Message content (string or parts) → canonical parts. */
function contentParts(content: MessageItem["content"], field: string, warnings: Warning[]): Part[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part, index) => contentPart(part, `${field}.content[${index}]`, warnings));
}

function contentPart(content: MessageContent, field: string, warnings: Warning[]): Part {
  switch (content.type) {
    case "input_text":
      return textPart(content.text, cacheOf(content));
    case "output_text": {
      const part = textPart(content.text, undefined);
      if (content.annotations && content.annotations.length > 0) part.annotations = content.annotations;
      return part;
    }
    case "refusal":
      return { type: "refusal", text: content.refusal };
    case "input_image":
      return imagePart(content, field, warnings);
    case "input_file":
      return filePart(content, field);
  }
}

function textPart(text: string, cache: CacheMark | undefined): TextPart {
  return cache ? { type: "text", text, cache } : { type: "text", text };
}

function cacheOf(content: { cache_control?: { type: "ephemeral"; ttl?: string } }): CacheMark | undefined {
  return content.cache_control ? cacheMark(content.cache_control) : undefined;
}

/** A Responses `cache_control` (on a part, a tool or the body) → canonical mark: `type` and `ttl` only. */
export function cacheMark(control: { type: "ephemeral"; ttl?: string }): CacheMark {
  return control.ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: control.ttl };
}

function imagePart(content: InputImage, field: string, warnings: Warning[]): ImagePart | FilePart {
  const cache = cacheOf(content);
  if (typeof content.image_url === "string" && content.image_url !== "") return urlImagePart(content.image_url, content.detail, cache);
  if (typeof content.file_id === "string" && content.file_id !== "") {
    // The canonical image part holds URLs only; a provider file id travels as a file part instead.
    warn(warnings, "approximated", field, "input_image by file_id is carried as a file reference");
    const part: FilePart = { type: "file", data: content.file_id };
    if (cache) part.cache = cache;
    return part;
  }
  throw errors.invalid(`${field}: input_image needs image_url or file_id`);
}

function filePart(content: InputFile, field: string): FilePart {
  const data = content.file_data ?? content.file_url ?? content.file_id ?? undefined;
  if (data === undefined || data === null || data === "") {
    throw errors.invalid(`${field}: input_file needs file_data, file_url or file_id`);
  }
  return dataFilePart(data, content.filename, cacheOf(content));
}

function toolResult(item: FunctionCallOutputItem, field: string, warnings: Warning[]): ToolResultPart {
  if (typeof item.output === "string") return { type: "tool-result", callId: item.call_id, content: item.output };
  const content: Array<TextPart | ImagePart> = [];
  item.output.forEach((entry, index) => {
    const entryField = `${field}.output[${index}]`;
    if (entry.type === "input_text") content.push(textPart(entry.text, cacheOf(entry)));
    else if (entry.type === "input_image") {
      const part = imagePart(entry, entryField, warnings);
      if (part.type === "image") content.push(part);
      else warn(warnings, "unsupported_content", entryField, "an image by file_id in a tool result was dropped");
    } else warn(warnings, "unsupported_content", entryField, "input_file in a function_call_output was dropped: tool results carry text and images");
  });
  return { type: "tool-result", callId: item.call_id, content };
}

/** Item keys that are the call's envelope, not what the tool returned. */
const SERVER_TOOL_ENVELOPE: ReadonlySet<string> = new Set(["type", "id", "status", "call_id", "arguments", "error"]);

/** A `service:*` item → the server-tool part: whatever the item shows beside its envelope is the tool's result. */
function serverToolPart(item: ServerToolItem): Part {
  const result = Object.fromEntries(Object.entries(item).filter(([key]) => !SERVER_TOOL_ENVELOPE.has(key)));
  return replayedServerToolPart({
    id: item.id,
    callId: item.call_id,
    name: item.type,
    arguments: item.arguments,
    status: item.status,
    result: Object.keys(result).length > 0 ? result : undefined,
    error: item.error,
  });
}

/** A `web_search_call` item that says what it searched for (the gateway shows its own searches this way). */
function isWebSearchCall(item: unknown): item is { id: string; status?: unknown; action: Record<string, unknown> } {
  if (!isPlainObject(item) || typeof item.id !== "string" || !isPlainObject(item.action)) return false;
  return item.action.type === "search" && typeof item.action.query === "string";
}

/**
 * A replayed `web_search_call` (OpenAI's hosted web search, which the gateway ran as `service:web_search`) → the
 * search's part: the query as its arguments, the sources as its results, so the model sees its search again.
 */
function webSearchCallPart(item: { id: string; status?: unknown; action: Record<string, unknown> }): Part {
  const query = item.action.query as string;
  const sources = Array.isArray(item.action.sources) ? item.action.sources.filter(isPlainObject) : [];
  const results = sources.flatMap((source) => (typeof source.url === "string" ? [{ url: source.url }] : []));
  return replayedServerToolPart({
    id: item.id,
    name: "service:web_search",
    arguments: JSON.stringify({ query }),
    status: typeof item.status === "string" ? item.status : null,
    result: { query, results },
  });
}

function reasoningPart(item: ReasoningItem): ReasoningPart {
  const text = (item.content ?? []).map((entry) => entry.text).join("\n");
  const part: ReasoningPart = { type: "reasoning", text };
  const summary = (item.summary ?? []).map((entry) => entry.text);
  // A summary that is the reasoning text itself is the copy our own items carry (output-items.ts), not a second text.
  if (summary.length > 0 && !(text !== "" && summary.join("\n") === text)) part.summary = summary;
  if (typeof item.signature === "string") part.signature = item.signature;
  if (typeof item.encrypted_content === "string") part.encrypted = item.encrypted_content;
  if (typeof item.id === "string" && item.id !== "" && !isGatewayItemId(item.id)) part.id = item.id;
  if (typeof item.format === "string") part.format = item.format;
  return part;
}
