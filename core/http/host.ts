/**
 * The `Host` a request must carry. Bun builds `request.url` from the Host header; without one (an
 * HTTP/1.0 request) or with one it cannot use (`a b`, `a@b`) the URL is only the path, and code that parses it
 * threw — which reached the client as the runtime's error page, with file paths. A Host Bun did use may still not
 * parse (`a:99999`, `[zz]`). Both are a 400 envelope here, before anything else reads the URL. (HTTP/1.1 without
 * Host never gets this far: Bun answers it with a bare 400 itself.)
 *
 * Any Host that parses is fine whatever it names: routing looks at the path alone (core/app.ts).
 */
import { GatewayError } from "../errors.ts";

/** The 400 for a request whose Host is missing or unusable; undefined when it is fine (the usual case: ~0.2 µs). */
export function hostError(request: Request): GatewayError | undefined {
  const url = request.url;
  // `http://` is all this server speaks (core/serve.ts has no TLS); anything else is a path Bun could not prefix.
  if (url.startsWith("http://") && URL.canParse(url) && request.headers.has("host")) return undefined;
  return new GatewayError("invalid_request", "Missing or invalid Host header", { metadata: { param: "host" } });
}
