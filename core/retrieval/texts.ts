/**
 * The texts of a retrieval request, kept as its messages so input guardrails read and redact them like a chat prompt:
 * embeddings have one user message per text input; rerank has the query, then one message per document.
 */
import type { Message } from "../model/parts.ts";

/** One user message holding `text`. */
export function textMessage(text: string): Message {
  return { role: "user", parts: [{ type: "text", text }] };
}

/** The text of one message (its text parts joined: a redaction may have split nothing, but stay safe). */
export function messageText(message: Message): string {
  let text = "";
  for (const part of message.parts) if (part.type === "text") text += part.text;
  return text;
}

/** Every message's text, in order. */
export function messageTexts(messages: readonly Message[]): string[] {
  return messages.map(messageText);
}
