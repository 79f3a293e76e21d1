/**
 * Input filters on the canonical request, before anything reaches an upstream: a block is the 403 (with the
 * pipeline entries that say why), redactions rewrite the request in place (so the upstream, every fallback and every
 * later turn see placeholders), flags are recorded. The scan gives the event loop back as it goes (scan.ts).
 */
import type { CanonicalRequest } from "../model/request.ts";
import type { PipelineEntry } from "../pipeline/context.ts";
import type { Filter } from "./policy.ts";
import { applyRedactions } from "./redact.ts";
import { blockError, pipelineEntries } from "./report.ts";
import { requestSlots } from "./request-texts.ts";
import { scanSlots } from "./scan.ts";

export async function guardRequest(request: CanonicalRequest, filters: readonly Filter[], pipeline: PipelineEntry[]): Promise<void> {
  if (filters.length === 0) return;
  const verdict = await scanSlots(requestSlots(request), filters, "input");
  pipeline.push(...pipelineEntries(verdict, "input"));
  if (verdict.blocks.length > 0) throw blockError(verdict.blocks, "input");
  applyRedactions(verdict.redactions);
}
