/**
 * A non-streamed answer is settled (its generation record queued in the usage ledger) before the guardrails stage,
 * which wraps accounting, checks it on the way out. What that check found is added to the still-queued record:
 * its pipeline entries, and the 403 when the answer was blocked (the answer was produced, so it stays billed).
 */
import { generationDetails } from "../accounting/generation-details.ts";
import type { RequestContext } from "../pipeline/context.ts";

export function amendRecord(ctx: RequestContext, blocked?: { status: number; type: string }): void {
  const record = ctx.deps.ledger.pendingGeneration(ctx.generationId);
  if (!record) return;
  record.details = generationDetails(ctx);
  if (blocked) {
    record.status = blocked.status;
    record.errorType = blocked.type;
  }
}
