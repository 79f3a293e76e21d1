/** The Elysia root at `/api/v1`: route groups, docs, one error handler. No business logic here. */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { createAuthenticator } from "./auth/authenticate.ts";
import type { Deps } from "./deps.ts";
import { errors, toGatewayError } from "./errors.ts";
import { formatRoutes } from "./formats/index.ts";
import { errorResponse } from "./http/envelope.ts";
import { edgeEnvelope } from "./http/edge-envelope.ts";
import { hasCredential, oncePerRequest, UNREAD_BODY } from "./http/auth-first.ts";
import { payloadTooLarge } from "./http/body-limit.ts";
import { readJsonBody } from "./http/body-read.ts";
import { bodyLimitsOf } from "./http/edge-limits.ts";
import { edgeError, type RouteTable } from "./http/edge-errors.ts";
import { API_PREFIX } from "./http/api-prefix.ts";
import { accountRoutes } from "./api/account.ts";
import { catalogRoutes } from "./api/catalog.ts";
import { healthRoutes } from "./api/health.ts";
import { inferenceRoute } from "./api/inference.ts";
import { countTokensRoute } from "./api/count-tokens.ts";
import { batchRoutes } from "./api/batches.ts";
import { containerRoutes } from "./api/containers.ts";
import { keyRoutes } from "./api/keys.ts";
import { cacheRoutes } from "./api/cache.ts";
import { presetRoutes } from "./api/presets.ts";
import { guardrailRoutes } from "./api/guardrails.ts";
import { guardrailAssignmentRoutes } from "./api/guardrail-assignments.ts";
import { betaAdmissionRoutes } from "./api/beta-admissions.ts";
import { metricsRoute } from "./observe/metrics/route.ts";
import { usageRoutes } from "./api/usage.ts";
import { generationLogRoutes } from "./api/generations.ts";
import { workspaceRoutes } from "./api/workspaces.ts";
import { byokRoutes } from "./api/byok.ts";

export function createApp(deps: Deps, defaultWorkspaceId: string) {
  // One authentication per request, whether the body parser (below) or the route asks first.
  const auth = oncePerRequest(createAuthenticator(deps, defaultWorkspaceId));
  const routes: RouteTable = new Map();
  const limit = deps.config.bodyLimitBytes;
  const bodyLimits = bodyLimitsOf(deps.config);
  const trimmer = deps.idleTrimmer;

  const api = new Elysia({ prefix: API_PREFIX, name: "api", normalize: false })
    .use(catalogRoutes(deps))
    .use(healthRoutes(deps))
    .use(keyRoutes(deps, auth))
    .use(workspaceRoutes(deps, auth, defaultWorkspaceId))
    .use(byokRoutes(deps, auth))
    .use(accountRoutes(deps, auth))
    .use(presetRoutes(deps, auth))
    .use(batchRoutes(deps, auth))
    .use(containerRoutes(deps, auth))
    .use(guardrailRoutes(deps, auth))
    .use(guardrailAssignmentRoutes(deps, auth))
    .use(betaAdmissionRoutes(deps, auth))
    .use(usageRoutes(deps, auth))
    .use(generationLogRoutes(deps, auth))
    .use(cacheRoutes(deps, auth));
  // Elysia instances are mutable: `use` registers the routes on `api` itself.
  for (const route of formatRoutes) api.use(inferenceRoute(deps, auth, route.path, route.format, route.summary));
  api.use(countTokensRoute(deps, auth));

  // `standardHostname: false`: Elysia finds the path as the first "/" after index 11 of the URL, assuming a Host of
  // at least four characters; with `Host: x` the path of `http://x/api/v1/health` became `/v1/health`.
  // From index 7 (just after `http://`, all this server speaks) the path is right whatever the Host.
  const app = new Elysia({ name: "gateway", normalize: false, handler: { standardHostname: false } })
    .onRequest(({ request }) => {
      trimmer?.touch();
      // No id or slug of this API holds U+0000 (the store could not even look one up: Postgres refuses it in text),
      // so a path with one names nothing: 404 here, for every route at once.
      if (nulInPath(request.url)) {
        const error = errors.notFound("Not found");
        return errorResponse(error, edgeEnvelope(request, error), { "x-generation-id": deps.ids.id("gen-") });
      }
      // Reject oversized bodies from the declared length before reading them; undeclared ones: onParse below.
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > limit) {
        const error = payloadTooLarge(limit);
        return errorResponse(error, edgeEnvelope(request, error), { "x-generation-id": deps.ids.id("gen-") });
      }
    })
    // Every body is read here, with its bounds of size, time and nesting (core/http/body-read.ts) — and only once the
    // request is authenticated: every route with a body needs a key, and without one nobody may hold a connection
    // open by sending a body slowly. (401 thus precedes 400 for a malformed body too. A route that ever takes a body
    // without a key, or a body that is not JSON, must be told apart here: Elysia's own parsers have none of the bounds.)
    .onParse(async ({ request }) => {
      if (request.body === null) return undefined;
      if (!hasCredential(request)) return UNREAD_BODY;
      // Elysia reports whatever a parser throws as a parse failure; an unexpected error must stay a 500 (with its
      // cause logged), not become "Malformed JSON": core/http/edge-errors.ts passes our own errors through as they are.
      await auth.authenticate(request.headers).catch((error: unknown) => Promise.reject(toGatewayError(error)));
      return readJsonBody(request, bodyLimits);
    })
    .onError(({ code, error, request }) => edgeError(code, error, request, routes, deps.ids.id("gen-"), deps.logger))
    .use(
      openapi({
        path: "/docs",
        documentation: {
          info: { title: "Inference gateway", version: "1.0.0", description: "One HTTP/JSON service in front of many language-model providers." },
        },
      }),
    )
    // Prometheus scrapes `/metrics` at the root by convention (README "Metrics").
    .use(metricsRoute(deps))
    .use(api);

  for (const route of app.routes) {
    const path = route.path.replace(/\/+$/, "") || "/";
    const methods = routes.get(path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    routes.set(path, methods);
  }
  return app;
}

export type GatewayApp = ReturnType<typeof createApp>;

/** True when the path (not the query) holds an encoded U+0000; one search on the hot path, a second only on a hit. */
function nulInPath(url: string): boolean {
  const at = url.indexOf("%00");
  if (at === -1) return false;
  const query = url.indexOf("?");
  return query === -1 || at < query;
}
