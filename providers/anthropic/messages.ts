/**
 * Canonical system + messages → Anthropic `system` and `messages` (passthrough fidelity: cache marks, signed thinking,
 * redacted thinking, documents). Tool messages become `tool_result` blocks of a user turn and consecutive turns of one
 * role are merged, because Anthropic requires strict user/assistant alternation.
 */
import type { CacheMark, FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolResultPart, Warning } from "../../core/sdk/index.ts";
import { isHttpUrl, parseDataUrl, warnUnsupported } from "../../core/sdk/provider.ts";
import { webSearchHistoryBlocks } from "./web-search-blocks.ts";
import type { WireBlockParam, WireMessageParam } from "./wire.ts";

/** `system`: a plain string when that loses nothing, else text blocks carrying their cache marks. */
export function toWireSystem(system: readonly TextPart[]): string | WireBlockParam[] | undefined {
  const parts = system.filter((p) => p.text !== "");
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && parts[0]?.cache === undefined) return parts[0]?.text;
  return parts.map((p) => withCache({ type: "text", text: p.text }, p.cache));
}

/** Converts the conversation, merging same-role neighbours and skipping turns left empty. */
export function toWireMessages(messages: readonly Message[], warnings: Warning[]): WireMessageParam[] {
  const out: WireMessageParam[] = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = message.parts.flatMap((part) => (role === "assistant" ? assistantBlocks(part, warnings) : userBlocks(part, warnings)));
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/** Anthropic tool ids must match `^[a-zA-Z0-9_-]+$`; other upstreams' ids (`functions.f:0`) are made to fit. */
export function wireToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** Parses tool arguments into Anthropic's `input` object; not-an-object becomes `{}` with a warning. */
export function toolInput(args: string, warnings: Warning[]): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  warnUnsupported(warnings, "tool_use.input", "Tool-call arguments that are not a JSON object were sent to Anthropic as {}");
  return {};
}

function withCache(block: WireBlockParam, cache: CacheMark | undefined): WireBlockParam {
  if (cache !== undefined) block.cache_control = { ...cache };
  return block;
}

function userBlocks(part: Part, warnings: Warning[]): WireBlockParam[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [withCache({ type: "text", text: part.text }, part.cache)];
    case "image":
      return [imageBlock(part)];
    case "file":
      return [fileBlock(part)];
    case "tool-result":
      return [toolResultBlock(part)];
    default:
      warnUnsupported(warnings, `messages.user.${part.type}`, `A ${part.type} part in a user turn cannot be sent to Anthropic and was dropped`);
      return [];
  }
}

function assistantBlocks(part: Part, warnings: Warning[]): WireBlockParam[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [withCache({ type: "text", text: part.text }, part.cache)];
    case "refusal":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "reasoning":
      return reasoningBlocks(part, warnings);
    case "tool-call":
      return [{ type: "tool_use", id: wireToolId(part.id), name: part.name, input: toolInput(part.arguments, warnings) }];
    case "server-tool": {
      // Anthropic's own web search goes back as it came; other server tools have no Anthropic form (dropped below).
      const blocks = webSearchHistoryBlocks(part);
      if (blocks) return blocks;
      const why = `A ${part.name} call Anthropic did not run (or without its encrypted results) cannot be sent to Anthropic and was dropped`;
      warnUnsupported(warnings, "messages.assistant.server-tool", why);
      return [];
    }
    default:
      warnUnsupported(warnings, `messages.assistant.${part.type}`, `A ${part.type} part in an assistant turn cannot be sent to Anthropic and was dropped`);
      return [];
  }
}

/**
 * Anthropic verifies thinking signatures, so only its own signed (or redacted) thinking can travel back; reasoning
 * of other families has no valid signature and is dropped with a warning rather than failing the request. Its
 * thinking is one text: signed thinking that came back as a summary only (a Responses item that showed the text as
 * its summary, the request having asked for one) sends that summary as the text.
 */
function reasoningBlocks(part: ReasoningPart, warnings: Warning[]): WireBlockParam[] {
  const own = part.format === undefined || part.format.startsWith("anthropic");
  if (own && part.redacted !== undefined) return [{ type: "redacted_thinking", data: part.redacted }];
  if (own && part.signature) return [{ type: "thinking", thinking: part.text !== "" ? part.text : (part.summary?.join("") ?? ""), signature: part.signature }];
  warnUnsupported(
    warnings,
    "messages.assistant.reasoning",
    "Reasoning without an Anthropic signature (from another model family, or unsigned) was not sent: Anthropic rejects unsigned thinking",
  );
  return [];
}

function imageBlock(part: ImagePart): WireBlockParam {
  const data = parseDataUrl(part.url);
  const source = data ? { type: "base64", media_type: data.mediaType, data: data.base64 } : { type: "url", url: part.url };
  return withCache({ type: "image", source }, part.cache);
}

/** Files: PDFs and text as documents, images as images; URLs by reference; anything else is a Files API id. */
function fileBlock(part: FilePart): WireBlockParam {
  const data = parseDataUrl(part.data);
  let block: WireBlockParam;
  if (data?.mediaType.startsWith("image/")) block = { type: "image", source: { type: "base64", media_type: data.mediaType, data: data.base64 } };
  else if (data?.mediaType.startsWith("text/")) {
    block = { type: "document", source: { type: "text", media_type: "text/plain", data: Buffer.from(data.base64, "base64").toString("utf8") } };
  } else if (data) block = { type: "document", source: { type: "base64", media_type: data.mediaType, data: data.base64 } };
  else if (isHttpUrl(part.data)) block = { type: "document", source: { type: "url", url: part.data } };
  else if (part.mediaType?.startsWith("image/")) block = { type: "image", source: { type: "file", file_id: part.data } };
  else block = { type: "document", source: { type: "file", file_id: part.data } };
  if (block.type === "document" && part.filename) block.title = part.filename;
  return withCache(block, part.cache);
}

function toolResultBlock(part: ToolResultPart): WireBlockParam {
  let content: string | WireBlockParam[] =
    typeof part.content === "string"
      ? part.content
      : part.content.map((inner) => (inner.type === "text" ? withCache({ type: "text", text: inner.text }, inner.cache) : imageBlock(inner)));
  // Tools a client-side tool search found go back as they came: Anthropic loads the deferred tools they name.
  if (part.toolReferences !== undefined) {
    const references = part.toolReferences.map((name) => ({ type: "tool_reference", tool_name: name }));
    content = typeof content === "string" ? [...(content === "" ? [] : [{ type: "text", text: content }]), ...references] : [...content, ...references];
  }
  const block: WireBlockParam = { type: "tool_result", tool_use_id: wireToolId(part.callId), content };
  if (part.isError) block.is_error = true;
  return withCache(block, part.cache);
}
