/**
 * The gateway's request handler with every HTTP request counted by method, route template and status — also those
 * refused before a request context exists (bad JSON, schema 400s, 401s, 404s, 413s), which the per-request
 * inference metrics cannot see. One map lookup and one counter increment per request.
 */
import { incBy } from "./bound.ts";
import type { MetricFamilies } from "./families.ts";
import { routeMatcher, type RouteDefinition } from "./http-routes.ts";
import { statusLabel } from "../labels.ts";

export interface RequestHandler {
  handle(request: Request): Response | Promise<Response>;
}

export function countedApp(app: RequestHandler & { routes: readonly RouteDefinition[] }, families: MetricFamilies): RequestHandler {
  const match = routeMatcher(app.routes.map((r) => ({ method: r.method.toUpperCase(), path: r.path })));
  const count = (request: Request, response: Response) => {
    const { method, route } = match(request.method, request.url);
    incBy(families.http, { method, route, status: statusLabel(response.status) });
    return response;
  };
  return {
    handle(request) {
      const handled = app.handle(request);
      return handled instanceof Promise ? handled.then((response) => count(request, response)) : count(request, handled);
    },
  };
}
