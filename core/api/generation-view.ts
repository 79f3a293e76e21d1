/**
 * `GET /generation?id=` in the peer's shape (the SDK's `GenerationResponse` requires every field, nullable where the
 * gateway may not know). What the generation record holds is reported; what it does not record is null (or the
 * document's neutral value where null is not allowed: `origin` "", `data_region` "global", `is_byok` false).
 * README "Generations" lists them. Our own fields (`format`, `upstream_model`, `status`, `error_type`) come along.
 */
import type { GenerationRecord } from "../store/types.ts";

/** Every inference format of the gateway is a text generation: the peer's `completions`. */
const API_TYPE = "completions";

export function generationView(g: GenerationRecord, options: { withDetails: boolean } = { withDetails: true }): Record<string, unknown> {
  return {
    id: g.id,
    model: g.model,
    provider_name: g.providerId,
    upstream_model: g.upstreamModel,
    upstream_id: null,
    api_type: API_TYPE,
    format: g.format,
    streamed: g.streamed,
    // Not recorded: a client that walks away from a stream is recorded as a failed request (status 500), not apart.
    cancelled: null,
    status: g.status,
    finish_reason: g.finishReason,
    // The record keeps the upstream's own finish value when it gave one (`finish.raw`), else the unified one.
    native_finish_reason: g.finishReason,
    error_type: g.errorType,
    tokens_prompt: g.inputTokens,
    tokens_completion: g.outputTokens,
    // Token counts are the upstream's own (adapters read them from its usage), so native equals normalised.
    native_tokens_prompt: g.inputTokens,
    native_tokens_completion: g.outputTokens,
    native_tokens_completion_images: null,
    native_tokens_cached: g.cachedInputTokens,
    native_tokens_cache_write: g.cacheWriteTokens,
    native_tokens_reasoning: g.reasoningTokens,
    num_media_prompt: null,
    num_input_audio_prompt: null,
    num_media_completion: null,
    num_search_results: null,
    num_fetches: null,
    web_search_engine: null,
    total_cost: g.cost,
    usage: g.cost,
    upstream_inference_cost: g.isByok ? (g.byokCost ?? 0) : null,
    cache_discount: null,
    is_byok: g.isByok === true,
    latency: g.firstTokenMs,
    generation_time: g.latencyMs,
    moderation_latency: null,
    created_at: new Date(g.createdAt).toISOString(),
    app_id: null,
    origin: "",
    http_referer: null,
    user_agent: null,
    external_user: null,
    preset_id: null,
    router: null,
    service_tier: null,
    provider_responses: null,
    data_region: "global",
    workspace_id: g.workspaceId,
    ...(options.withDetails ? detailsOf(g.details) : {}),
  };
}

/**
 * Our own fields (the admin page's detail view): `attempts`, `pipeline` and `warnings` as accounting recorded them
 * (core/accounting/generation-details.ts); absent for records written before they were kept.
 */
function detailsOf(details: string | null | undefined): Record<string, unknown> {
  if (!details) return {};
  try {
    const parsed = JSON.parse(details) as Record<string, unknown>;
    return { attempts: parsed.attempts ?? [], pipeline: parsed.pipeline ?? [], warnings: parsed.warnings ?? [] };
  } catch {
    return {};
  }
}
