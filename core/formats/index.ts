/** The wire formats the gateway speaks, and the path each is served at. */
import { chatFormat } from "./chat/index.ts";
import { messagesFormat } from "./messages/index.ts";
import { responsesFormat } from "./responses/index.ts";
import type { WireFormat } from "./format.ts";

export interface FormatRoute {
  path: string;
  format: WireFormat;
  summary: string;
}

export const formatRoutes: readonly FormatRoute[] = [
  { path: "/chat/completions", format: chatFormat, summary: "Create a chat completion (OpenAI chat-completions format)" },
  { path: "/responses", format: responsesFormat, summary: "Create a response (Responses format)" },
  { path: "/messages", format: messagesFormat, summary: "Create a message (Anthropic Messages format)" },
];
