/**
 * The canonical request of a retrieval body (`POST /embeddings`, `POST /rerank`; README "Embeddings and rerank"): its
 * texts as user messages (so input guardrails read them all), its task, and the routing fields both bodies share.
 * Nothing is generated: no tools, no sampling, no output tokens (a credit hold and a rate limit count the input only).
 */
import type { Message } from "../../model/parts.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { Warning } from "../../model/warnings.ts";
import { textMessage } from "../../retrieval/texts.ts";
import type { RetrievalTask } from "../../retrieval/types.ts";
import { foldRoute } from "./route.ts";
import { sessionOf } from "./session.ts";

/** The fields every retrieval body has beside its own. */
export interface RetrievalBody {
  model: string;
  models?: string[];
  user?: string;
  provider?: Record<string, unknown> | null;
  session_id?: string;
  trace?: Record<string, unknown>;
}

export function retrievalRequest(body: Record<string, unknown>, headers: Headers, texts: readonly string[], task: RetrievalTask, warnings: Warning[]): CanonicalRequest {
  const req = body as unknown as RetrievalBody;
  const messages: Message[] = texts.map(textMessage);
  const request: CanonicalRequest = {
    // The closest family: an OpenAI-shaped body (nothing renders it as chat: the retrieval encoders do).
    format: "chat",
    model: req.model,
    models: req.models ?? [],
    system: [],
    messages,
    tools: [],
    sampling: {},
    maxTokens: 0,
    stream: false,
    plugins: [],
    task,
    warnings,
    original: body,
  };
  const provider = foldRoute(req.provider, undefined);
  if (provider !== undefined) request.provider = provider;
  const session = sessionOf(req.session_id, headers);
  if (session !== undefined) request.sessionId = session;
  if (req.user !== undefined) request.user = req.user;
  if (req.trace !== undefined) request.trace = req.trace as CanonicalRequest["trace"];
  return request;
}
