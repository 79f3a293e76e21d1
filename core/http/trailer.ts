/**
 * Fills an outcome's trailer from what the request went through (README "What a request carries"): the encoders get
 * the routing metadata and the container as data, settled by the edge, and never call back into the request.
 */
import type { RequestContext } from "../pipeline/context.ts";
import type { StreamOutcome, Trailer } from "../pipeline/outcome.ts";
import { serviceMetadataOf } from "./service-metadata.ts";

/** What the request went through so far: the metadata only when the client opted in. */
export function fillTrailer(trailer: Trailer, ctx: RequestContext): Trailer {
  if (ctx.metadataOptIn) trailer.serviceMetadata = serviceMetadataOf(ctx);
  const container = ctx.usedContainers?.at(-1);
  if (container !== undefined) trailer.container = container;
  return trailer;
}

/**
 * Keeps a stream's trailer settled as it closes: filled when its `finish` or `error` event passes (an encoder writes
 * its closing frame from that event) and again when its source ends (one that writes it after the last event).
 * Observers run in the order they were attached, so this last one sees what the others recorded. A stream with
 * nothing to fill (no opt-in, no server tool that could use a container) gets no observer: a plain stream's events
 * cost nothing more.
 */
export function settleTrailerAtClose(outcome: StreamOutcome, ctx: RequestContext): void {
  if (!ctx.metadataOptIn && !ctx.request.tools.some((tool) => tool.kind === "server")) return;
  const trailer = outcome.trailer;
  outcome.observe({
    event: (event) => {
      if (event.type === "finish" || event.type === "error") fillTrailer(trailer, ctx);
      return event;
    },
    fail: () => {},
    end: () => void fillTrailer(trailer, ctx),
  });
}
