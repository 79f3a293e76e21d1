/**
 * `POST /rerank` body → canonical request with a rerank task: the query is the first message, each document one
 * after it (so input guardrails read them all). Empty query, empty documents and image-only documents are refused
 * naming the field.
 */
import { errors } from "../../errors.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { RerankTask } from "../../retrieval/types.ts";
import { retrievalRequest } from "../shared/retrieval-request.ts";
import { unknownFieldWarnings } from "../shared/unknown-fields.ts";
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
  const warnings = unknownFieldWarnings(body, KNOWN_FIELDS);
  if (req.query.length === 0) invalid("query", "must not be an empty string");
  if (req.documents.length === 0) invalid("documents", "must not be an empty array");
  const documents = req.documents.map(documentText);
  const task: RerankTask = { kind: "rerank" };
  if (req.top_n !== undefined) task.topN = req.top_n;
  return retrievalRequest(body, headers, [req.query, ...documents], task, warnings);
}
