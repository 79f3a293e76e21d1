/** The context factory: one fresh context per request, for the HTTP edge and the batch worker alike. */
import type { Deps } from "../deps.ts";
import type { WireFormat } from "../formats/format.ts";
import { wantsMetadata } from "../http/service-metadata.ts";
import type { RequestContext } from "./context.ts";
import { Bill } from "../accounting/bill.ts";

/**
 * Decodes `body` in `format` (throws the format's 400) and builds the context; the caller sets the principal.
 * `priceFactor`: what the request costs relative to list price (a batch item's discount), its bill's.
 */
export function newContext(deps: Deps, format: WireFormat, body: Record<string, unknown>, headers: Headers, signal: AbortSignal, priceFactor = 1): RequestContext {
  return {
    deps,
    format,
    headers,
    signal,
    startedAt: deps.clock.now(),
    generationId: deps.ids.id("gen-"),
    principal: undefined,
    request: format.decode(body, headers),
    metadataOptIn: wantsMetadata(headers),
    ...freshState(priceFactor),
  };
}

/** What a request accumulates as it runs: empty at its start (also for hand-built contexts in tests). */
export function freshState(priceFactor = 1): Pick<RequestContext, "candidates" | "attempts" | "served" | "bill" | "plugins" | "pipeline" | "firstTokenMs" | "log" | "traceRecords"> {
  return { candidates: [], attempts: [], served: undefined, bill: new Bill(priceFactor), plugins: [], pipeline: [], firstTokenMs: undefined, log: {}, traceRecords: undefined };
}
