/**
 * `POST /rerank` body → canonical request with a rerank task: the query is the first message, each document one
 * after it (so input guardrails read them all). Empty query, empty documents and image-only documents are refused
 * naming the field.
 */
import { errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { textMessage } from "../../retrieval/texts.ts";
import type { RerankTask } from "../../retrieval/types.ts";
import { foldRoute } from "../shared/route.ts";
import { sessionOf } from "../shared/session.ts";
import { KNOWN_FIELDS, type RerankRequestBody } from "./schema.ts";

function invalid(field: string, message: string): never {
  throw errors.invalid(`${field}: ${message}`, { param: field });
}

function documentText(document: RerankRequestBody["documents"][number], index: number): string {
  const field = `documents[${index}]`;
  const text = typeof document === "string" ? document : document.text;
  if (text === undefined) invalid(field, "image documents are not supported by this gateway: give each document a text");
  if (text.length === 0) invalid(typeof document === "string" ? field : `${field}.text`, "must not be an empty string");
  return text;
}

export function decodeRerank(body: Record<string, unknown>, headers: Headers): CanonicalRequest {
  const req = body as RerankRequestBody;
  const warnings: Warning[] = [];
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) warn(warnings, "unknown_field", key, `Unknown field \`${key}\` was ignored`);
  }
  if (req.query.length === 0) invalid("query", "must not be an empty string");
  if (req.documents.length === 0) invalid("documents", "must not be an empty array");
  const documents = req.documents.map(documentText);
  const task: RerankTask = { kind: "rerank" };
  if (req.top_n !== undefined) task.topN = req.top_n;
  const request: CanonicalRequest = {
    format: "chat",
    model: req.model,
    models: req.models ?? [],
    system: [],
    messages: [textMessage(req.query), ...documents.map(textMessage)],
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
  if (req.trace !== undefined) request.trace = req.trace;
  return request;
}
