/**
 * The preset system prompt (spec endpoints 3–4): read from the chat system message, the Messages
 * `system` or the Responses `instructions`, and prepended to a request's own system text when the preset is used.
 */
import type { InboundFormat } from "../model/request.ts";
import { isRecord, type Json } from "./json.ts";

/** Separates the preset's system text from the request's own. */
const SEPARATOR = "\n\n";

/** Text of a string or of an array of `{type: text, text}` blocks. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((block) => (isRecord(block) && typeof block.text === "string" ? [block.text] : [])).join("");
}

/** The system text a body carries, or null when it carries none. */
export function systemPromptOf(format: InboundFormat, body: Json): string | null {
  let text = "";
  if (format === "chat" && Array.isArray(body.messages)) {
    // System and developer messages are both system text in the canonical model.
    const parts = body.messages.flatMap((m) => (isRecord(m) && (m.role === "system" || m.role === "developer") ? [textOf(m.content)] : []));
    text = parts.filter((part) => part !== "").join(SEPARATOR);
  } else if (format === "messages") {
    text = textOf(body.system);
  } else if (format === "responses" && typeof body.instructions === "string") {
    text = body.instructions;
  }
  return text === "" ? null : text;
}

/** Puts the preset's system text before the request's own, in the format's own way. Mutates `body`. */
export function prependSystemPrompt(format: InboundFormat, body: Json, prompt: string): void {
  if (format === "chat") {
    // A body without a messages array is left alone: validation will reject it with its own message.
    if (Array.isArray(body.messages)) body.messages = [{ role: "system", content: prompt }, ...body.messages];
    return;
  }
  if (format === "messages") {
    const own = body.system;
    if (Array.isArray(own)) body.system = [{ type: "text", text: prompt }, ...own];
    else body.system = typeof own === "string" && own !== "" ? prompt + SEPARATOR + own : prompt;
    return;
  }
  const own = body.instructions;
  body.instructions = typeof own === "string" && own !== "" ? prompt + SEPARATOR + own : prompt;
}
