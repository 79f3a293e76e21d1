/** The context factory: one fresh context per request, for the HTTP edge and the batch worker alike. */
import type { Deps } from "../deps.ts";
import type { WireFormat } from "../formats/format.ts";
import { wantsMetadata } from "../http/service-metadata.ts";
import type { RequestContext } from "./context.ts";
import { Spend } from "./turn/spend.ts";

/** Decodes `body` in `format` (throws the format's 400) and builds the context; the caller sets the principal. */
export function newContext(deps: Deps, format: WireFormat, body: Record<string, unknown>, headers: Headers, signal: AbortSignal): RequestContext {
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
    ...freshState(),
  };
}

/** What a request accumulates as it runs: empty at its start (also for hand-built contexts in tests). */
export function freshState(): Pick<RequestContext, "candidates" | "attempts" | "served" | "spend" | "plugins" | "pipeline" | "firstTokenMs" | "log" | "traceRecords"> {
  return { candidates: [], attempts: [], served: undefined, spend: new Spend(), plugins: [], pipeline: [], firstTokenMs: undefined, log: {}, traceRecords: undefined };
}
