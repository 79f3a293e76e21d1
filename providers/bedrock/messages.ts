/**
 * Canonical system + messages → Converse `system` and `messages`: text, images and documents (bytes or S3), tool calls
 * and results (a tool message is a `toolResult` block of a user turn), signed and redacted reasoning, and each cache
 * mark as a `cachePoint` block after what it marks. Consecutive turns of one role are merged: Converse alternates user
 * and assistant. What Bedrock cannot take is dropped with a warning.
 */
import type { CacheMark, FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolResultPart, Warning } from "../../core/sdk/index.ts";
import { isHttpUrl, warnUnsupported } from "../../core/sdk/provider.ts";
import { documentBlock, documentName, imageBlock, isImageReference } from "./media.ts";
import { BEDROCK_REASONING_FORMAT, type ModelTraits } from "./models.ts";
import type { WireCachePoint, WireContentBlock, WireMessage, WireSystemBlock, WireToolResultContent } from "./wire.ts";

/** A cache mark as a `cachePoint` (its TTL when Bedrock knows it). */
export function cachePoint(mark: CacheMark): WireCachePoint {
  return mark.ttl === "5m" || mark.ttl === "1h" ? { type: "default", ttl: mark.ttl } : { type: "default" };
}

/** `system`: text blocks, each cache mark a cachePoint after its text. */
export function toWireSystem(system: readonly TextPart[]): WireSystemBlock[] | undefined {
  const blocks: WireSystemBlock[] = [];
  for (const part of system) {
    if (part.text === "") continue;
    blocks.push({ text: part.text });
    if (part.cache !== undefined) blocks.push({ cachePoint: cachePoint(part.cache) });
  }
  return blocks.length > 0 ? blocks : undefined;
}

/** Bedrock tool-use ids match `^[a-zA-Z0-9_-]+$`; other upstreams' ids (`functions.f:0`) are made to fit. */
export function wireToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "tool";
}

/** Per-request conversion state: warnings, and document names (each unique in a request). */
class Conversion {
  private readonly names = new Set<string>();

  constructor(
    readonly traits: ModelTraits,
    readonly anthropicFormat: string,
    readonly warnings: Warning[],
  ) {}

  uniqueName(filename: string | undefined): string {
    const base = documentName(filename, `document ${this.names.size + 1}`);
    let name = base;
    for (let n = 2; this.names.has(name); n++) name = `${base} (${n})`;
    this.names.add(name);
    return name;
  }
}

/** Converts the conversation, merging same-role neighbours and skipping turns left empty. */
export function toWireMessages(messages: readonly Message[], traits: ModelTraits, anthropicFormat: string, warnings: Warning[]): WireMessage[] {
  const conversion = new Conversion(traits, anthropicFormat, warnings);
  const out: WireMessage[] = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = message.parts.flatMap((part) => (role === "assistant" ? assistantBlocks(part, conversion) : userBlocks(part, conversion)));
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/** Tool-call arguments as the object Bedrock's `input` must be; anything else becomes `{}` with a warning. */
export function toolInput(args: string, warnings: Warning[]): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  warnUnsupported(warnings, "tool_use.input", "Tool-call arguments that are not a JSON object were sent to Bedrock as {}");
  return {};
}

function withCache(block: WireContentBlock, cache: CacheMark | undefined): WireContentBlock[] {
  return cache === undefined ? [block] : [block, { cachePoint: cachePoint(cache) }];
}

function userBlocks(part: Part, c: Conversion): WireContentBlock[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : withCache({ text: part.text }, part.cache);
    case "image":
      return imageBlocks(part, c);
    case "file":
      return fileBlocks(part, c);
    case "tool-result":
      return withCache({ toolResult: toolResult(part, c) }, part.cache);
    default:
      warnUnsupported(c.warnings, `messages.user.${part.type}`, `A ${part.type} part in a user turn cannot be sent to Bedrock and was dropped`);
      return [];
  }
}

function assistantBlocks(part: Part, c: Conversion): WireContentBlock[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : withCache({ text: part.text }, part.cache);
    case "refusal":
      return part.text === "" ? [] : [{ text: part.text }];
    case "reasoning":
      return reasoningBlocks(part, c);
    case "tool-call":
      return [{ toolUse: { toolUseId: wireToolId(part.id), name: part.name, input: toolInput(part.arguments, c.warnings) } }];
    default:
      warnUnsupported(c.warnings, `messages.assistant.${part.type}`, `A ${part.type} part in an assistant turn cannot be sent to Bedrock and was dropped`);
      return [];
  }
}

function imageBlocks(part: ImagePart, c: Conversion): WireContentBlock[] {
  const image = imageBlock(part.url, part.mediaType);
  if (image) return withCache({ image }, part.cache);
  const why = isHttpUrl(part.url)
    ? "Bedrock takes images as bytes (a data: URL) or an s3:// location, never an http(s) URL; the image was not sent"
    : "Bedrock takes PNG, JPEG, GIF and WebP images only; the image was not sent";
  warnUnsupported(c.warnings, "messages.image_url", why);
  return [];
}

/** Files: images as images, PDFs, Office documents, HTML, CSV, text and Markdown as documents (bytes or S3). */
function fileBlocks(part: FilePart, c: Conversion): WireContentBlock[] {
  if (isImageReference(part.data, part.mediaType)) {
    const image = imageBlock(part.data, part.mediaType);
    if (image) return withCache({ image }, part.cache);
  } else {
    const document = documentBlock(part.data, part.mediaType, c.uniqueName(part.filename));
    if (document) return withCache({ document }, part.cache);
  }
  const why = isHttpUrl(part.data)
    ? "Bedrock takes files as bytes (a data: URL) or an s3:// location, never an http(s) URL; the file was not sent"
    : "Bedrock takes PDF, Word, Excel, HTML, CSV, text and Markdown documents (and images) as bytes or s3:// locations; the file was not sent";
  warnUnsupported(c.warnings, "messages.file", why);
  return [];
}

function toolResult(part: ToolResultPart, c: Conversion): { toolUseId: string; content: WireToolResultContent[]; status?: "success" | "error" } {
  const content: WireToolResultContent[] = [];
  if (typeof part.content === "string") {
    if (part.content !== "") content.push({ text: part.content });
  } else {
    for (const item of part.content) {
      if (item.type === "text") {
        if (item.text !== "") content.push({ text: item.text });
        continue;
      }
      const image = imageBlock(item.url, item.mediaType);
      if (image) content.push({ image });
      else warnUnsupported(c.warnings, "tool_result.image", "Bedrock takes tool-result images as bytes or s3:// locations in PNG, JPEG, GIF or WebP; the image was not sent");
    }
  }
  const block: { toolUseId: string; content: WireToolResultContent[]; status?: "success" | "error" } = { toolUseId: wireToolId(part.callId), content };
  if (part.isError === true) block.status = "error";
  return block;
}

/**
 * Reasoning travels back only when Bedrock can verify it: signed (or redacted) reasoning of the model's own family.
 * Claude's reasoning from Anthropic's API or Vertex carries the same signatures and goes back too; other families'
 * reasoning, or unsigned reasoning, is dropped with a warning rather than failing the request.
 */
function reasoningBlocks(part: ReasoningPart, c: Conversion): WireContentBlock[] {
  const format = part.format;
  const own = format === undefined || format === BEDROCK_REASONING_FORMAT || (c.traits.claude && format === c.anthropicFormat);
  if (own && part.redacted !== undefined) return [{ reasoningContent: { redactedContent: part.redacted } }];
  if (own && part.signature) {
    const text = part.text !== "" ? part.text : (part.summary?.join("") ?? "");
    return [{ reasoningContent: { reasoningText: { text, signature: part.signature } } }];
  }
  warnUnsupported(
    c.warnings,
    "messages.assistant.reasoning",
    "Reasoning without a signature Bedrock can verify (from another model family, or unsigned) was not sent back",
  );
  return [];
}
