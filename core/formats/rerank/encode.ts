/**
 * Canonical response → the rerank result (the peer's `CreateRerankResponse`, Cohere's shape): results best first,
 * each with its document's index, `relevance_score` and the document as the client sent it (`{text}`), and usage
 * with the tokens and search units the upstream counted and the cost.
 */
import type { CanonicalResponse } from "../../model/response.ts";
import type { EncodeContext } from "../format.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";

function documentOf(sent: unknown): Record<string, unknown> {
  if (typeof sent === "string") return { text: sent };
  return typeof sent === "object" && sent !== null ? { ...(sent as Record<string, unknown>) } : {};
}

export function encodeRerank(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown> {
  const ranking = response.retrieval?.kind === "rerank" ? response.retrieval : undefined;
  const sent = Array.isArray(ctx.request.original.documents) ? (ctx.request.original.documents as unknown[]) : [];
  const usage: Record<string, unknown> = { total_tokens: response.usage.input.total };
  if (ranking?.searchUnits !== undefined) usage.search_units = ranking.searchUnits;
  if (response.cost) usage.cost = response.cost.total;
  const body: Record<string, unknown> = {
    id: ctx.generationId,
    model: response.model,
    provider: response.provider,
    results: (ranking?.results ?? []).map((r) => ({ index: r.index, relevance_score: r.score, document: documentOf(sent[r.index]) })),
    usage,
  };
  const metadata = trailerMetadata(ctx.trailer, ctx.request.warnings);
  if (metadata) body.service_metadata = metadata;
  return body;
}
