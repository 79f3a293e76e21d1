/** The wire formats the gateway speaks, and the path each is served at. */
import { chatFormat } from "./chat/index.ts";
import { embeddingsFormat } from "./embeddings/index.ts";
import { rerankFormat } from "./rerank/index.ts";
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
  { path: "/embeddings", format: embeddingsFormat, summary: "Create embeddings (OpenAI embeddings format) with an embedding model" },
  { path: "/rerank", format: rerankFormat, summary: "Rank documents by relevance to a query with a rerank model" },
];
