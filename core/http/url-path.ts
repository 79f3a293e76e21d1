/**
 * The path of a request URL without parsing it: `new URL()` throws on what a client can make Bun build (a relative
 * URL when the Host is missing, `http://a:99999/`), and the edge must be able to name the path of any request.
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = scheme === -1 ? 0 : url.indexOf("/", scheme + 3);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}
