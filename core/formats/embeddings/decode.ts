/** `POST /embeddings` body → canonical request with an embeddings task (README "Embeddings and rerank"). */
import type { CanonicalRequest } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import type { EmbeddingTask } from "../../retrieval/types.ts";
import { textMessage } from "../../retrieval/texts.ts";
import { foldRoute } from "../shared/route.ts";
import { sessionOf } from "../shared/session.ts";
import { decodeInput } from "./input.ts";
import { KNOWN_FIELDS, type EmbeddingsRequest } from "./schema.ts";

export function decodeEmbeddings(body: Record<string, unknown>, headers: Headers): CanonicalRequest {
  const req = body as EmbeddingsRequest;
  const warnings: Warning[] = [];
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) warn(warnings, "unknown_field", key, `Unknown field \`${key}\` was ignored`);
  }
  const inputs = decodeInput(req.input);
  const task: EmbeddingTask = { kind: "embeddings", encodingFormat: req.encoding_format ?? "float" };
  if ("tokens" in inputs) task.tokens = inputs.tokens;
  if (req.dimensions !== undefined) task.dimensions = req.dimensions;
  if (req.input_type !== undefined) task.inputType = req.input_type;
  const request: CanonicalRequest = {
    // The closest family: an OpenAI-shaped body (nothing renders it as chat: the embeddings encoder does).
    format: "chat",
    model: req.model,
    models: req.models ?? [],
    system: [],
    messages: "texts" in inputs ? inputs.texts.map(textMessage) : [],
    tools: [],
    sampling: {},
    // Nothing is generated: a credit hold and a rate limit count the input only.
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
  if (req.trace !== undefined) request.trace = req.trace;
  return request;
}
