/**
 * Maps a request to the route template that serves it (`/api/v1/keys/:hash`, never the hash itself), so the HTTP
 * counter's `route` label stays bounded: static paths by one map lookup, the few parameterised ones by a regex
 * each. A path no route serves is `unmatched`.
 */
export interface RouteDefinition {
  method: string;
  path: string;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

export type RouteMatcher = (method: string, url: string) => { method: string; route: string };

export function routeMatcher(routes: readonly RouteDefinition[]): RouteMatcher {
  const exact = new Set<string>();
  const patterns: Array<{ regex: RegExp; route: string }> = [];
  for (const { path } of routes) {
    const route = path.replace(/\/+$/, "") || "/";
    if (!route.includes(":") && !route.includes("*")) exact.add(route);
    else if (!patterns.some((p) => p.route === route)) patterns.push({ regex: toRegex(route), route });
  }
  return (method, url) => {
    const path = pathOf(url);
    const m = METHODS.has(method) ? method : "other";
    if (exact.has(path)) return { method: m, route: path };
    for (const pattern of patterns) if (pattern.regex.test(path)) return { method: m, route: pattern.route };
    return { method: m, route: "unmatched" };
  };
}

function toRegex(route: string): RegExp {
  const source = route
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment === "*" ? ".*" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}

/** The path of an absolute URL without the query, trailing slashes trimmed; no URL object is built. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.indexOf("?", start);
  if (end === -1) end = url.length;
  while (end > start + 1 && url.charCodeAt(end - 1) === 47) end--;
  return url.slice(start, end);
}
