/** Inference routes: decode the body in the client's format, run the one pipeline, reply in the same format. */
import { Elysia } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { isChatFormat, type WireFormat } from "../formats/format.ts";
import { bodyChecker, jsonRequestBody } from "../http/body-check.ts";
import { bodyDigestOf } from "../idempotency/body-digest.ts";
import { IDEMPOTENCY_PARAMETER, idempotencyKeyOf } from "../idempotency/header.ts";
import { idempotencyOf } from "../idempotency/service.ts";
import { respond } from "../http/render.ts";
import { newContext } from "../pipeline/new-context.ts";
import { runPipeline } from "../pipeline/pipeline.ts";
import { pipelineLogs } from "../pipeline/request-log.ts";
import { mergePresets } from "../presets/merge.ts";
import { presetSetting } from "../cache/setting-body.ts";
import { CACHE_PARAMETERS } from "../cache/setting.ts";

/** One POST route for one format, authenticated before the body is validated (401 precedes 400). */
export function inferenceRoute(deps: Deps, auth: Authenticator, path: string, format: WireFormat, summary: string) {
  const checkBody = bodyChecker(format.schema);
  const idempotency = idempotencyOf(deps);
  return new Elysia({ name: `route:${format.id}:${path}` })
    .derive({ as: "local" }, async ({ request }) => ({ principal: await auth.authenticate(request.headers) }))
    // Presets: merged into the parsed body BEFORE schema validation, so the merged request is what gets
    // validated and decoded. Management keys are refused by the pipeline's auth stage, so they resolve nothing here.
    .derive({ as: "local" }, async ({ body, principal }) => {
      if (principal.isManagement || !isChatFormat(format.id)) return {};
      const config = await mergePresets(deps.store.presets, principal.workspaceId, format.id, body);
      // The preset's response-cache setting is no request field: it reaches the cache stage on the context.
      return config ? { presetCache: presetSetting(config) } : {};
    })
    .post(
      path,
      async ({ body, request, principal, presetCache }) => {
        const key = idempotencyKeyOf(request.headers);
        if (key === undefined) {
          // Validated here, after the preset merge, not by Elysia (core/http/body-check.ts says why).
          const ctx = newContext(deps, format, checkBody(body) as Record<string, unknown>, request.headers, request.signal);
          ctx.principal = principal;
          if (presetCache) ctx.presetCache = presetCache;
          // From here the renderer writes this request's log line (at the end of its stream, if it streams).
          pipelineLogs(request);
          return respond(ctx, runPipeline(ctx));
        }
        // Idempotent (core/idempotency/service.ts): run once, retries get the first reply.
        return idempotency.handle({
          scope: principal.keyHash,
          route: path,
          key,
          bodyDigest: bodyDigestOf(request, body),
          signal: request.signal,
          run: (recorder) => {
            // A signal of its own: the first client leaving must not stop the run its retry is about to join. The
            // reply is recorded as the client reads it (its format's stream passes through the recording).
            const ctx = newContext(deps, recorder.format(format), checkBody(body) as Record<string, unknown>, request.headers, new AbortController().signal);
            ctx.principal = principal;
            if (presetCache) ctx.presetCache = presetCache;
            pipelineLogs(request);
            return respond(ctx, runPipeline(ctx).then((outcome) => recorder.outcome(outcome)));
          },
        });
      },
      { parse: "json", detail: { summary, tags: ["inference"], parameters: [IDEMPOTENCY_PARAMETER, ...CACHE_PARAMETERS], requestBody: jsonRequestBody(format.schema) } },
    );
}
