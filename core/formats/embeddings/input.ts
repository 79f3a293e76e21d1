/**
 * The `input` of an embeddings request, checked element by element (README "Embeddings and rerank"): a string, an
 * array of strings, an array of token ids (one input), or an array of token-id arrays. Nothing empty is accepted — an
 * empty string, an empty array, an empty token array — and each refusal names the field (`input`, `input[3]`).
 */
import { errors } from "../../errors.ts";

/** Texts or token-id arrays, never both. */
export type EmbeddingInputs = { texts: string[] } | { tokens: number[][] };

const TOKEN_ID_MAX = 4_294_967_295;

function isTokenId(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= TOKEN_ID_MAX;
}

function invalid(field: string, message: string): never {
  throw errors.invalid(`${field}: ${message}`, { param: field });
}

export function decodeInput(input: unknown): EmbeddingInputs {
  if (typeof input === "string") {
    if (input.length === 0) invalid("input", "must not be an empty string");
    return { texts: [input] };
  }
  if (!Array.isArray(input)) invalid("input", "must be a string, an array of strings, an array of token ids or an array of token-id arrays");
  if (input.length === 0) invalid("input", "must not be an empty array");
  const first = input[0];
  if (typeof first === "string") return { texts: input.map((item, i) => text(item, `input[${i}]`)) };
  if (typeof first === "number") return { tokens: [input.map((item, i) => tokenId(item, `input[${i}]`))] };
  if (Array.isArray(first)) return { tokens: input.map((item, i) => tokenArray(item, `input[${i}]`)) };
  if (typeof first === "object" && first !== null) invalid("input[0]", "multimodal inputs ({content: [...]}) are not supported by this gateway: send text or token ids");
  return invalid("input[0]", "must be a string, a token id or a token-id array");
}

function text(item: unknown, field: string): string {
  if (typeof item !== "string") invalid(field, "must be a string like the other inputs");
  if (item.length === 0) invalid(field, "must not be an empty string");
  return item;
}

function tokenId(item: unknown, field: string): number {
  if (!isTokenId(item)) invalid(field, "must be a token id (an integer from 0) like the other inputs");
  return item;
}

function tokenArray(item: unknown, field: string): number[] {
  if (!Array.isArray(item)) invalid(field, "must be a token-id array like the other inputs");
  if (item.length === 0) invalid(field, "must not be an empty array");
  return item.map((id, j) => tokenId(id, `${field}[${j}]`));
}
