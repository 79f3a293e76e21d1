/**
 * The 404 of a path that ends with one of our routes under another prefix: almost always a client
 * whose base URL is one segment too deep or too shallow — an Anthropic client given `…/api/v1` calls
 * `/api/v1/v1/messages`, an OpenAI client given `…/api/v1/v1` calls `/api/v1/v1/chat/completions`. Claude Code
 * reports a bare 404 as a model problem; this one names the base URL to set instead.
 */
import { API_PREFIX } from "./api-prefix.ts";
import { GatewayError } from "../errors.ts";
import { anthropicClient } from "./edge-envelope.ts";
import { clip } from "./clip.ts";

/** Anthropic SDKs append `/v1/messages` to their base URL, OpenAI-style ones `/chat/completions`. */
const ANTHROPIC_VERSION_SEGMENT = "/v1";

const suffixesOf = new WeakMap<ReadonlyMap<string, unknown>, readonly RegExp[]>();

/**
 * Each route under the API prefix as a pattern of what follows the prefix, anchored at the end of a path, its
 * parameters matching any one segment; longest first (built once per route table, on the first 404).
 */
function suffixes(routes: ReadonlyMap<string, unknown>): readonly RegExp[] {
  let found = suffixesOf.get(routes);
  if (found) return found;
  const tails = [...routes.keys()]
    .filter((path) => path.startsWith(`${API_PREFIX}/`) && !path.includes("*"))
    .map((path) => path.slice(API_PREFIX.length))
    .sort((a, b) => b.length - a.length);
  found = tails.map((tail) => {
    const body = tail
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    return new RegExp(`${body}$`);
  });
  suffixesOf.set(routes, found);
  return found;
}

/**
 * The origin the client reached us at: behind a proxy that terminates TLS or renames the host, as
 * `X-Forwarded-Proto` / `X-Forwarded-Host` say (the client sees only this message, so trusting them costs nothing);
 * otherwise as the request URL has it. Clipped: these headers are the client's.
 */
function originOf(request: Request): string {
  const forwardedProto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  const forwardedHost = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const url = request.url;
  const scheme = url.indexOf("://");
  const start = scheme === -1 ? -1 : url.indexOf("/", scheme + 3);
  const own = start === -1 ? url : url.slice(0, start);
  const proto = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : own.slice(0, Math.max(scheme, 0));
  const host = forwardedHost || own.slice(scheme + 3);
  return clip(`${proto}://${host}`);
}

/**
 * The 404 for `path` (no route matched it): with the base URL to use when the path ends with a known route,
 * otherwise the plain "No route" one.
 */
export function unknownRoute(request: Request, path: string, routes: ReadonlyMap<string, unknown>): GatewayError {
  const plain = `No route for ${request.method} ${clip(path)}`;
  if (!suffixes(routes).some((suffix) => suffix.test(path))) return new GatewayError("not_found", plain);
  const anthropic = anthropicClient(request) && API_PREFIX.endsWith(ANTHROPIC_VERSION_SEGMENT);
  const basePath = anthropic ? API_PREFIX.slice(0, -ANTHROPIC_VERSION_SEGMENT.length) : API_PREFIX;
  const baseUrl = originOf(request) + basePath;
  const twice = path.includes("/v1/v1/") ? " (this path has /v1 twice)" : "";
  return new GatewayError("not_found", `${plain}; set the client's base URL to ${baseUrl}${twice}`, { metadata: { base_url: baseUrl } });
}
