/**
 * Token counts known before the upstream call: an upper bound of the prompt (for credit reservations, which must
 * never be exceeded by the actual cost) and a typical estimate (for token rate limits, which should not be
 * pessimistic). Byte-level BPE tokenizers never produce more tokens than UTF-8 bytes, hence the bound.
 */
import type { Part } from "../model/parts.ts";
import type { CanonicalRequest } from "../model/request.ts";

/** Per message: role and separator tokens that chat templates add. */
const PER_MESSAGE_TOKENS = 8;
/** Generous per image/file: high-detail images cost a few thousand tokens on the largest upstreams. */
const PER_ATTACHMENT_TOKENS = 8_000;
/** Typical English: about four bytes per token. */
const BYTES_PER_TOKEN = 4;

/** Prompt size in UTF-8 bytes plus attachments, computed once per request. */
export interface PromptSize {
  bytes: number;
  messages: number;
  attachments: number;
}

/** Measures the prompt: system, messages, tool definitions. */
export function promptSize(request: CanonicalRequest): PromptSize {
  const size: PromptSize = { bytes: 0, messages: request.messages.length + 1, attachments: 0 };
  for (const part of request.system) size.bytes += Buffer.byteLength(part.text);
  for (const message of request.messages) for (const part of message.parts) addPart(size, part);
  // Token-id inputs of an embeddings request: each id is one token (four bytes keep the estimate exact).
  const task = request.task;
  if (task?.kind === "embeddings" && task.tokens) for (const ids of task.tokens) size.bytes += ids.length * BYTES_PER_TOKEN;
  for (const tool of request.tools) {
    size.bytes += tool.kind === "function" ? Buffer.byteLength(tool.name + (tool.description ?? "")) + jsonBytes(tool.parameters) : Buffer.byteLength(tool.type);
  }
  return size;
}

/** At least as many tokens as the prompt can have. */
export function promptTokenBound(size: PromptSize): number {
  return size.bytes + size.messages * PER_MESSAGE_TOKENS + size.attachments * PER_ATTACHMENT_TOKENS;
}

/** A typical token count, for rate limits. */
export function promptTokenEstimate(size: PromptSize): number {
  return Math.ceil(size.bytes / BYTES_PER_TOKEN) + size.messages * PER_MESSAGE_TOKENS + size.attachments * 1_000;
}

function addPart(size: PromptSize, part: Part): void {
  switch (part.type) {
    case "text":
    case "refusal":
      size.bytes += Buffer.byteLength(part.text);
      return;
    case "reasoning":
      size.bytes += Buffer.byteLength(part.text) + (part.summary ?? []).reduce((n, s) => n + Buffer.byteLength(s), 0);
      return;
    case "tool-call":
      size.bytes += Buffer.byteLength(part.name) + Buffer.byteLength(part.arguments);
      return;
    case "tool-result":
      if (typeof part.content === "string") size.bytes += Buffer.byteLength(part.content);
      else for (const inner of part.content) addPart(size, inner);
      return;
    case "image":
    case "file":
      size.attachments++;
      return;
  }
}

function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}
