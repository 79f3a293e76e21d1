/**
 * Batches (spec "Batch", endpoint 5): submit, get, list, cancel, delete. Scoped to the caller's
 * workspace; submitting is inference work, so it needs an inference key and is charged to that key.
 */
import { Elysia, t } from "elysia";
import { credentialOf, requireInference, type Authenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { actingIn, namedWorkspace } from "../auth/workspace-scope.ts";
import { isTerminal, RETENTION_MS } from "../batches/lifecycle.ts";
import { ITEM_ERRORS } from "../batches/results.ts";
import { submitBatch } from "../batches/submit.ts";
import { batchView, listedBatchView } from "../batches/view.ts";
import type { Deps } from "../deps.ts";
import { errors, GatewayError } from "../errors.ts";
import { jsonResponse } from "../http/envelope.ts";
import { bodyDigestOf } from "../idempotency/body-digest.ts";
import { IDEMPOTENCY_PARAMETER, idempotencyKeyOf } from "../idempotency/header.ts";
import { idempotencyOf } from "../idempotency/service.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import type { BatchRecord } from "../store/types.ts";

/** Requests per batch (OpenAI's limit; the body size limit usually binds first). */
export const MAX_BATCH_REQUESTS = 50_000;

const Submission = t.Object({
  endpoint: t.String({ minLength: 1 }),
  model: t.Optional(t.String({ minLength: 1 })),
  completion_window: t.Optional(t.Literal("24h")),
  requests: t.Array(
    t.Object({ custom_id: t.String({ minLength: 1, maxLength: 512 }), body: t.Record(t.String(), t.Unknown()) }),
    { minItems: 1, maxItems: MAX_BATCH_REQUESTS },
  ),
});

const ListQuery = t.Object({
  after: t.Optional(t.String({ minLength: 1 })),
  /** The operator's key lists another workspace's batches (README "Workspaces"). */
  workspace_id: t.Optional(t.String()),
  limit: IntegerQuery("Page size, 1 to 100 (default 20)"),
});

const conflict = (message: string) => new GatewayError("precondition_failed", message, { status: 409 });

export function batchRoutes(deps: Deps, auth: Authenticator) {
  const settings = () => deps.config.batches;
  const idempotency = idempotencyOf(deps);

  /** The caller's batch, or 404: another workspace's batch is indistinguishable from a missing one. */
  const own = async (principal: Principal, id: string): Promise<BatchRecord> => {
    const batch = await deps.store.batches.get(id);
    if (!batch || batch.workspaceId !== principal.workspaceId) throw errors.notFound("Batch not found");
    return batch;
  };

  /** A batch with live request counts (a running batch has no stored ones yet). */
  const withCounts = async (batch: BatchRecord): Promise<BatchRecord> => {
    if (batch.requestCompleted !== null || batch.purgedAt !== null) return batch;
    const counts = await deps.store.batches.counts(batch.id);
    return { ...batch, requestCompleted: counts.completed, requestFailed: counts.failed };
  };

  return new Elysia({ name: "routes:batches" })
    .derive({ as: "local" }, async ({ request }) => {
      // Spec "Authentication": the batch endpoint's 401 says no credentials were found.
      if (!credentialOf(request.headers)) throw errors.unauthenticated("No credentials found");
      // The operator's key reads another workspace's batches by naming it; anyone else naming one gets 404.
      return { principal: await actingIn(await auth.authenticate(request.headers), namedWorkspace(request.url, undefined), deps.store.workspaces) };
    })
    .post(
      "/batches",
      async ({ body, principal, request }) => {
        requireInference(principal);
        const submit = async () => {
          const batch = await submitBatch(deps, principal, body);
          deps.batchWorker?.wake();
          return jsonResponse(batchView(batch, undefined, false), 202);
        };
        const key = idempotencyKeyOf(request.headers);
        if (key === undefined) return submit();
        // A retried submission gets the first batch back instead of a second batch (core/idempotency/service.ts).
        return idempotency.handle({ scope: principal.keyHash, route: "/batches", key, bodyDigest: bodyDigestOf(request, body), signal: request.signal, run: submit });
      },
      { body: Submission, parse: "json", detail: { summary: "Submit a batch of inference requests", tags: ["batches"], parameters: [IDEMPOTENCY_PARAMETER] } },
    )
    .get(
      "/batches",
      async ({ query, principal }) => {
        const limit = integerParam("limit", query.limit, { min: 1, max: 100, fallback: 20 });
        const cursor = query.after === undefined ? undefined : await own(principal, query.after).catch(() => {
          throw errors.invalid("after: unknown batch id", { param: "after" });
        });
        const page = await deps.store.batches.list(principal.workspaceId, { after: cursor, limit: limit + 1 });
        const shown = await Promise.all(page.slice(0, limit).map(withCounts));
        const data = shown.map(listedBatchView);
        return { object: "list", data, first_id: shown[0]?.id ?? null, last_id: shown.at(-1)?.id ?? null, has_more: page.length > limit };
      },
      { query: ListQuery, detail: { summary: "List batches (newest first)", tags: ["batches"] } },
    )
    .get(
      "/batches/:id",
      async ({ params, principal }) => {
        const limit = settings()?.getRateLimitPerMinute;
        if (limit !== undefined) {
          const verdict = await deps.kv.rateLimit(`batches:get:${principal.keyHash}`, limit, 60_000);
          if (!verdict.allowed) throw new GatewayError("rate_limit_exceeded", "Rate limit exceeded: too many batch status requests", { retryAfter: verdict.retryAfterMs / 1000 });
        }
        const batch = await own(principal, params.id);
        if (deps.clock.now() >= batch.createdAt + RETENTION_MS) {
          // An expired batch is `not_found` with status 410.
          throw new GatewayError("not_found", "Batch results were deleted 30 days after the batch was created", { status: 410 });
        }
        // Results only once terminal; while it runs a grouped count is enough (no need to load every item).
        if (isTerminal(batch.status)) return batchView(batch, await deps.store.batches.results(batch.id), true);
        return batchView(await withCounts(batch), undefined, false);
      },
      { detail: { summary: "Get a batch: status, counts, and results once it is terminal", tags: ["batches"] } },
    )
    .post(
      "/batches/:id/cancel",
      async ({ params, principal }) => {
        const batch = await own(principal, params.id);
        const now = deps.clock.now();
        if (batch.status === "validating" || batch.status === "in_progress") {
          // Requests not started yet fail as cancelled at once, in the same transaction; running ones finish.
          await deps.store.batches.transition(batch.id, ["validating", "in_progress"], "cancelling", { cancellingAt: now }, { statuses: ["pending"], error: { ...ITEM_ERRORS.cancelled }, now });
          deps.batchWorker?.wake();
        }
        const current = await own(principal, params.id);
        if (current.status !== "cancelling" && current.status !== "cancelled") throw conflict(`Batch ${batch.id} is ${current.status} and can no longer be cancelled`);
        return batchView(await withCounts(current), undefined, false);
      },
      { detail: { summary: "Cancel a batch (cancelling, then cancelled; finished results are kept)", tags: ["batches"] } },
    )
    .delete(
      "/batches/:id",
      async ({ params, principal }) => {
        const batch = await own(principal, params.id);
        if (!isTerminal(batch.status)) throw conflict(`Batch ${batch.id} is ${batch.status}: only completed, failed, expired or cancelled batches can be deleted`);
        await deps.store.batches.delete(batch.id);
        return { id: batch.id, object: "batch", deleted: true };
      },
      { detail: { summary: "Delete a terminal batch (billing records are kept)", tags: ["batches"] } },
    );
}
