/** `POST /embeddings` body → canonical request with an embeddings task (README "Embeddings and rerank"). */
import type { CanonicalRequest } from "../../model/request.ts";
import type { EmbeddingTask } from "../../retrieval/types.ts";
import { retrievalRequest } from "../shared/retrieval-request.ts";
import { unknownFieldWarnings } from "../shared/unknown-fields.ts";
import { decodeInput } from "./input.ts";
import { KNOWN_FIELDS, type EmbeddingsRequest } from "./schema.ts";

export function decodeEmbeddings(body: Record<string, unknown>, headers: Headers): CanonicalRequest {
  const req = body as EmbeddingsRequest;
  const warnings = unknownFieldWarnings(body, KNOWN_FIELDS);
  const inputs = decodeInput(req.input);
  const task: EmbeddingTask = { kind: "embeddings", encodingFormat: req.encoding_format ?? "float" };
  if ("tokens" in inputs) task.tokens = inputs.tokens;
  if (req.dimensions !== undefined) task.dimensions = req.dimensions;
  if (req.input_type !== undefined) task.inputType = req.input_type;
  return retrievalRequest(body, headers, "texts" in inputs ? inputs.texts : [], task, warnings);
}
