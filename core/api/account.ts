/** Routes any key may call about itself: `GET /key` and `GET /generation?id=`. */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { GenerationRecord } from "../store/types.ts";
import { limitFields } from "../limits/key-view.ts";
import { isStorableText } from "../store/text.ts";
import { keyView } from "./key-view.ts";

export function accountRoutes(deps: Deps, auth: Authenticator) {
  return new Elysia({ name: "routes:account" })
    .derive({ as: "local" }, async ({ request }) => ({ principal: await auth.authenticate(request.headers) }))
    .get(
      "/key",
      async ({ principal }) => {
        if (!principal.record) {
          // The env admin key exists only in configuration.
          return { data: { hash: principal.keyHash, name: principal.name, label: "GATEWAY_ADMIN_KEY", is_management_key: true, is_provisioning_key: true, usage: 0, limit: null, limit_remaining: null, limit_reset: null, workspace_id: principal.workspaceId } };
        }
        // The principal's record may come from the auth cache; usage must be read fresh.
        const stored = await deps.ledger.readConsistently(() => deps.store.keys.findByHash(principal.keyHash));
        const record = stored ?? principal.record;
        const data = keyView(record, deps.ledger.pendingUsage(principal.keyHash));
        // limit_remaining from the credit window the reservations use, so it matches what the next request sees.
        return { data: { ...data, ...(await limitFields(deps.credits, record)), is_provisioning_key: principal.isManagement, is_free_tier: false } };
      },
      { detail: { summary: "The calling key, its usage and limit", tags: ["keys"] } },
    )
    .get(
      "/generation",
      async ({ query, principal }) => {
        // Ids in the path are covered at the edge (core/app.ts); this one is a query value.
        if (!isStorableText(query.id)) throw errors.notFound("Generation not found");
        const pending = deps.ledger.pendingGeneration(query.id);
        const record = pending?.workspaceId === principal.workspaceId ? pending : await deps.store.generations.get(query.id, principal.workspaceId);
        if (!record) throw errors.notFound("Generation not found");
        return { data: generationView(record) };
      },
      { query: t.Object({ id: t.String({ minLength: 1 }) }), detail: { summary: "One generation's usage and cost", tags: ["generations"] } },
    );
}

function generationView(g: GenerationRecord): Record<string, unknown> {
  return {
    id: g.id,
    model: g.model,
    provider_name: g.providerId,
    upstream_model: g.upstreamModel,
    api_type: g.format,
    streamed: g.streamed,
    status: g.status,
    finish_reason: g.finishReason,
    error_type: g.errorType,
    tokens_prompt: g.inputTokens,
    tokens_completion: g.outputTokens,
    native_tokens_cached: g.cachedInputTokens,
    native_tokens_cache_write: g.cacheWriteTokens,
    native_tokens_reasoning: g.reasoningTokens,
    total_cost: g.cost,
    usage: g.cost,
    latency: g.firstTokenMs,
    generation_time: g.latencyMs,
    created_at: new Date(g.createdAt).toISOString(),
  };
}
