/** Reading a conversation's text, for plugins that act on what the user asked (a router, a web search). */
import type { Message } from "./parts.ts";

/** The text of the last user message (its text parts, joined by newlines); "" when it has none. */
export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    const texts: string[] = [];
    for (const part of message.parts) if (part.type === "text") texts.push(part.text);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}
