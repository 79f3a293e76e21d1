/** Submitting a batch: validate every request, then store batch and items at once. */
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { errors } from "../errors.ts";
import { checkStorableText } from "../store/text.ts";
import type { BatchRecord } from "../store/types/batches.ts";
import { BATCH_ENDPOINTS, formatOfEndpoint } from "./endpoints.ts";
import { COMPLETION_WINDOW_MS } from "./lifecycle.ts";
import { validateRequests, type SubmittedRequest } from "./validate.ts";

/** The body of `POST /batches`. */
export interface BatchSubmission {
  endpoint: string;
  model?: string;
  completion_window?: "24h";
  requests: SubmittedRequest[];
}

/** Validates and stores a batch in status `validating`; the worker takes it from there. Charged to `principal`. */
export async function submitBatch(deps: Pick<Deps, "store" | "clock" | "ids">, principal: Principal, submission: BatchSubmission): Promise<BatchRecord> {
  const format = formatOfEndpoint(submission.endpoint);
  if (!format) {
    throw errors.invalid(`endpoint: must be one of ${BATCH_ENDPOINTS.join(", ")} (a leading /v1 is accepted)`, { param: "endpoint" });
  }
  checkStorableText(submission.model, "model");
  const bodies = await validateRequests(deps, principal, format, submission.model, submission.requests);
  const now = deps.clock.now();
  const id = deps.ids.id("batch_");
  return deps.store.batches.create({
    id,
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    endpoint: submission.endpoint,
    model: submission.model ?? commonModel(bodies),
    completionWindow: submission.completion_window ?? "24h",
    createdAt: now,
    expiresAt: now + COMPLETION_WINDOW_MS,
    items: submission.requests.map((request, index) => ({ id: deps.ids.id("batch_req_"), customId: request.custom_id, body: bodies[index] ?? request.body })),
  });
}

/** The one model every body names, when there is one (the Batch object's `model`). */
function commonModel(bodies: ReadonlyArray<Record<string, unknown>>): string | null {
  const models = new Set(bodies.map((body) => body.model));
  const [only] = models;
  return models.size === 1 && typeof only === "string" ? only : null;
}
