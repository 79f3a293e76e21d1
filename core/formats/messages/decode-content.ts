/**
 * Messages `system` + `messages` → canonical system parts and messages (spec "Messages request").
 * `tool_result` blocks of a user turn become role `tool` messages in their original position, so formats whose tool
 * results are separate messages (chat, Responses) see the same order the client sent.
 */
import { errors } from "../../errors.ts";
import type { CacheMark, FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolResultPart } from "../../model/parts.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { ANTHROPIC_REASONING_FORMAT } from "../../model/anthropic-names.ts";
import { reasoningFromSignature } from "./reasoning-token.ts";
import { serverToolPartOf } from "./decode-server-tools.ts";
import type { ContentBlock, DocumentBlock, ImageBlock, MessageParam, ServerToolResultBlock, TextBlock, ToolResultBlock } from "./schema-blocks.ts";

/** The conversation the way the canonical model holds it. */
export interface DecodedConversation {
  system: TextPart[];
  messages: Message[];
}

/** Decodes the system prompt and every message in order. */
export function decodeConversation(
  system: string | readonly TextBlock[] | undefined,
  input: readonly MessageParam[],
  warnings: Warning[],
): DecodedConversation {
  const out: DecodedConversation = { system: systemParts(system), messages: [] };
  // tool_result blocks name only the call id; Gemini needs the function name, so remember it from the tool_use.
  const toolNames = new Map<string, string>();
  input.forEach((message, i) => {
    const path = `messages[${i}]`;
    const blocks: readonly ContentBlock[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    switch (message.role) {
      case "system":
        if (out.messages.length > 0) {
          warn(warnings, "approximated", path, "A system message after the conversation started was moved to the system prompt");
        }
        blocks.forEach((block, j) => {
          if (block.type !== "text") throw errors.invalid(`${path}.content[${j}]: a system message may only hold text blocks`);
          out.system.push(textPart(block));
        });
        return;
      case "user":
        decodeUser(blocks, path, out.messages, toolNames, warnings);
        return;
      case "assistant":
        out.messages.push({ role: "assistant", parts: assistantParts(blocks, path, toolNames, warnings) });
        return;
    }
  });
  return out;
}

function systemParts(system: string | readonly TextBlock[] | undefined): TextPart[] {
  if (system === undefined) return [];
  return typeof system === "string" ? (system === "" ? [] : [{ type: "text", text: system }]) : system.map(textPart);
}

function cacheOf(block: { cache_control?: CacheMark | null }): CacheMark | undefined {
  return block.cache_control ? { ...block.cache_control } : undefined;
}

function withCache<P extends TextPart | ImagePart | FilePart | ToolResultPart>(part: P, block: { cache_control?: CacheMark | null }): P {
  const cache = cacheOf(block);
  if (cache) part.cache = cache;
  return part;
}

function textPart(block: TextBlock): TextPart {
  const part: TextPart = withCache({ type: "text", text: block.text }, block);
  if (block.citations?.length) part.annotations = [...block.citations];
  return part;
}

/** Splits a user turn: runs of ordinary blocks stay one user message, each tool_result becomes a tool message. */
function decodeUser(
  blocks: readonly ContentBlock[],
  path: string,
  messages: Message[],
  toolNames: ReadonlyMap<string, string>,
  warnings: Warning[],
): void {
  let pending: Part[] = [];
  const flush = () => {
    if (pending.length > 0) messages.push({ role: "user", parts: pending });
    pending = [];
  };
  blocks.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    switch (block.type) {
      case "tool_result":
        flush();
        messages.push({ role: "tool", parts: [toolResultPart(block, at, toolNames, warnings)] });
        return;
      case "text":
        pending.push(textPart(block));
        return;
      case "image":
        pending.push(imagePart(block, at, warnings));
        return;
      case "document":
        pending.push(...documentParts(block, at, warnings));
        return;
      default:
        throw errors.invalid(`${at}: \`${block.type}\` blocks are only valid in assistant messages`);
    }
  });
  flush();
}

/**
 * An assistant turn's blocks in order. A `server_tool_use` and the result block naming it become one server-tool part
 * at the call's position; a result block with no call in the message has nothing to attach to and is dropped.
 */
function assistantParts(blocks: readonly ContentBlock[], path: string, toolNames: Map<string, string>, warnings: Warning[]): Part[] {
  const results = new Map<string, ServerToolResultBlock>();
  for (const block of blocks) if (isServerToolResult(block)) results.set(block.tool_use_id, block);
  const calls = new Set(blocks.flatMap((block) => (block.type === "server_tool_use" ? [block.id] : [])));
  const parts: Part[] = [];
  blocks.forEach((block, j) => {
    const at = `${path}.content[${j}]`;
    if (block.type === "server_tool_use") parts.push(serverToolPartOf(block, results.get(block.id)));
    else if (isServerToolResult(block)) {
      if (!calls.has(block.tool_use_id)) warn(warnings, "unsupported_field", at, `A ${block.type} block without its server_tool_use (${block.tool_use_id}) was dropped`);
    } else if (block.type === "image") {
      // An image the model generated, sent back with the history (Messages results show image output so): no
      // upstream takes images in an assistant turn, so it is dropped, as chat and Responses history drop theirs.
      warn(warnings, "unsupported_field", at, "A generated image in an assistant turn cannot be sent upstream and was dropped");
    } else parts.push(assistantPart(block, at, toolNames, warnings));
  });
  return parts;
}

function isServerToolResult(block: ContentBlock): block is ServerToolResultBlock {
  return block.type.endsWith("_tool_result") && "tool_use_id" in block;
}

function assistantPart(block: ContentBlock, at: string, toolNames: Map<string, string>, warnings: Warning[]): Part {
  switch (block.type) {
    case "text":
      return textPart(block);
    case "tool_use":
      if (block.cache_control) warn(warnings, "unsupported_field", `${at}.cache_control`, "cache_control on a tool_use block was dropped");
      toolNames.set(block.id, block.name);
      return { type: "tool-call", id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
    case "thinking":
      return { type: "reasoning", text: block.thinking, ...reasoningFromSignature(block.signature) } satisfies ReasoningPart;
    case "redacted_thinking":
      return { type: "reasoning", text: "", redacted: block.data, format: ANTHROPIC_REASONING_FORMAT };
    default:
      throw errors.invalid(`${at}: \`${block.type}\` blocks are not valid in assistant messages`);
  }
}

function toolResultPart(block: ToolResultBlock, at: string, toolNames: ReadonlyMap<string, string>, warnings: Warning[]): ToolResultPart {
  const part: ToolResultPart = withCache({ type: "tool-result", callId: block.tool_use_id, content: "" }, block);
  const content = block.content;
  if (typeof content === "string") part.content = content;
  else if (content !== undefined) {
    const parts: Array<TextPart | ImagePart> = [];
    content.forEach((inner, k) => {
      const innerAt = `${at}.content[${k}]`;
      if (inner.type === "text") parts.push(textPart(inner));
      else if (inner.type === "tool_reference") (part.toolReferences ??= []).push(inner.tool_name);
      else if (inner.type === "image") {
        const image = imagePart(inner, innerAt, warnings);
        if (image.type === "image") parts.push(image);
        else warn(warnings, "unsupported_field", innerAt, "An image by file id inside a tool_result was dropped");
      }
      else {
        // Canonical tool results hold text and images only; a text document still reads as text.
        for (const doc of documentParts(inner, innerAt, warnings)) {
          if (doc.type === "text") parts.push(doc);
          else warn(warnings, "unsupported_field", innerAt, "A document inside a tool_result was dropped (only text and images are carried)");
        }
      }
    });
    part.content = parts;
  }
  if (block.is_error) part.isError = true;
  const name = toolNames.get(block.tool_use_id);
  if (name !== undefined) part.name = name;
  return part;
}

function imagePart(block: ImageBlock, at: string, warnings: Warning[]): ImagePart | FilePart {
  const source = block.source;
  switch (source.type) {
    case "base64":
      return withCache({ type: "image", url: `data:${source.media_type};base64,${source.data}`, mediaType: source.media_type }, block);
    case "url":
      return withCache({ type: "image", url: source.url }, block);
    case "file":
      // A Files API id is not a URL; carried as a file reference, which only an Anthropic upstream resolves.
      warn(warnings, "approximated", at, "An image given by Anthropic file id is carried as a file reference");
      return withCache({ type: "file", data: source.file_id, mediaType: "image/*" }, block);
  }
}

function documentParts(block: DocumentBlock, at: string, warnings: Warning[]): Array<TextPart | ImagePart | FilePart> {
  if (block.citations?.enabled) warn(warnings, "unsupported_field", `${at}.citations`, "Document citations settings are only honoured by an Anthropic upstream");
  if (block.context) warn(warnings, "unsupported_field", `${at}.context`, "Document `context` was dropped");
  const source = block.source;
  const file = (data: string, mediaType?: string): FilePart => {
    const part: FilePart = withCache({ type: "file", data }, block);
    if (mediaType !== undefined) part.mediaType = mediaType;
    if (block.title) part.filename = block.title;
    return part;
  };
  switch (source.type) {
    case "base64":
      return [file(`data:${source.media_type};base64,${source.data}`, source.media_type)];
    case "text": {
      const mediaType = source.media_type ?? "text/plain";
      return [file(`data:${mediaType};base64,${Buffer.from(source.data, "utf8").toString("base64")}`, mediaType)];
    }
    case "url":
      return [file(source.url, "application/pdf")];
    case "file":
      return [file(source.file_id)];
    case "content":
      warn(warnings, "approximated", at, "A content-source document was flattened into its text and image blocks");
      if (typeof source.content === "string") return [{ type: "text", text: source.content }];
      return source.content.map((inner, k) => (inner.type === "text" ? textPart(inner) : imagePart(inner, `${at}.source.content[${k}]`, warnings)));
  }
}
