/** Inference routes: decode the body in the client's format, run the one pipeline, reply in the same format. */
import { Elysia } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import type { WireFormat } from "../formats/format.ts";
import { wantsMetadata } from "../http/service-metadata.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { runPipeline } from "../pipeline/order.ts";
import { applyPresetReference } from "../presets/resolve.ts";

/** Builds a fresh context for one request (also used by the batch worker, without HTTP). */
export function newContext(deps: Deps, format: WireFormat, body: Record<string, unknown>, headers: Headers, signal: AbortSignal): RequestContext {
  const startedAt = deps.clock.now();
  return {
    deps,
    format,
    headers,
    signal,
    startedAt,
    generationId: deps.ids.id("gen-"),
    principal: undefined,
    request: format.decode(body, headers),
    metadataOptIn: wantsMetadata(headers),
    candidates: [],
    attempts: [],
    served: undefined,
    outcome: undefined,
    http: undefined,
    firstTokenMs: undefined,
    log: {},
  };
}

/** One POST route for one format, authenticated before the body is validated (401 precedes 400). */
export function inferenceRoute(deps: Deps, auth: Authenticator, path: string, format: WireFormat, summary: string) {
  return new Elysia({ name: `route:${format.id}:${path}` })
    .derive({ as: "local" }, async ({ request }) => ({ principal: await auth.authenticate(request.headers) }))
    // Presets (issue 6): merged into the parsed body BEFORE schema validation, so the merged request is what gets
    // validated and decoded. Management keys are refused by the pipeline's auth stage, so they resolve nothing here.
    .derive({ as: "local" }, async ({ body, principal }) => {
      if (!principal.isManagement) await applyPresetReference(deps.store.presets, principal.workspaceId, format.id, body);
      return {};
    })
    .post(
      path,
      async ({ body, request, principal }) => {
        const ctx = newContext(deps, format, body as Record<string, unknown>, request.headers, request.signal);
        ctx.principal = principal;
        await runPipeline(ctx);
        return ctx.http;
      },
      { body: format.schema, parse: "json", detail: { summary, tags: ["inference"] } },
    );
}
