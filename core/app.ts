/** The Elysia root at `/api/v1` (ARCHITECTURE §7): route groups, docs, one error handler. No business logic here. */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { createAuthenticator } from "./auth/authenticate.ts";
import type { Deps } from "./deps.ts";
import { errors } from "./errors.ts";
import { formatRoutes } from "./formats/index.ts";
import { envelopeOf, errorResponse } from "./http/envelope.ts";
import { payloadTooLarge, readUndeclaredJson } from "./http/body-limit.ts";
import { edgeError, type RouteTable } from "./http/edge-errors.ts";
import { accountRoutes } from "./api/account.ts";
import { catalogRoutes } from "./api/catalog.ts";
import { healthRoutes } from "./api/health.ts";
import { inferenceRoute } from "./api/inference.ts";
import { batchRoutes } from "./api/batches.ts";
import { containerRoutes } from "./api/containers.ts";
import { keyRoutes } from "./api/keys.ts";
import { presetRoutes } from "./api/presets.ts";

export const API_PREFIX = "/api/v1";

export function createApp(deps: Deps, defaultWorkspaceId: string) {
  const auth = createAuthenticator(deps, defaultWorkspaceId);
  const routes: RouteTable = new Map();
  const limit = deps.config.bodyLimitBytes;
  const trimmer = deps.idleTrimmer;

  const api = new Elysia({ prefix: API_PREFIX, name: "api", normalize: false })
    .use(catalogRoutes(deps))
    .use(healthRoutes(deps))
    .use(keyRoutes(deps, auth))
    .use(accountRoutes(deps, auth))
    .use(presetRoutes(deps, auth))
    .use(batchRoutes(deps, auth))
    .use(containerRoutes(deps, auth));
  // Elysia instances are mutable: `use` registers the routes on `api` itself.
  for (const route of formatRoutes) api.use(inferenceRoute(deps, auth, route.path, route.format, route.summary));

  const app = new Elysia({ name: "gateway", normalize: false })
    .onRequest(({ request }) => {
      trimmer?.touch();
      // No id or slug of this API holds U+0000 (the store could not even look one up: Postgres refuses it in text),
      // so a path with one names nothing: 404 here, for every route at once.
      if (nulInPath(request.url)) {
        const error = errors.notFound("Not found");
        return errorResponse(error, envelopeOf(error), { "x-generation-id": deps.ids.id("gen-") });
      }
      // Reject oversized bodies from the declared length before reading them; undeclared ones: onParse below.
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > limit) {
        const error = payloadTooLarge(limit);
        return errorResponse(error, envelopeOf(error), { "x-generation-id": deps.ids.id("gen-") });
      }
    })
    // Only a body without a declared length is read here (with its bound); every other body: Elysia's own parser.
    .onParse(({ request }) => readUndeclaredJson(request, limit))
    .onError(({ code, error, request }) => edgeError(code, error, request, routes, deps.ids.id("gen-")))
    .use(
      openapi({
        path: "/docs",
        documentation: {
          info: { title: "Inference gateway", version: "1.0.0", description: "One HTTP/JSON service in front of many language-model providers." },
        },
      }),
    )
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
