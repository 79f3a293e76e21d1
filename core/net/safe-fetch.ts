/**
 * The one network policy of server-side fetches (server tools, plugins, image and file URLs): a fetch made on a
 * user's or a model's behalf must not reach the gateway's own machine, its private network or a cloud metadata
 * service.
 *
 * - Only `http:` and `https:` URLs.
 * - The host is resolved once (an IP literal skips DNS) and every address is checked (address.ts); one refused
 *   address refuses the fetch. The operator's `network.allow_private` ranges pass.
 * - DNS rebinding: the request then goes to the checked address itself, never to the name again: the URL's host is
 *   replaced by the IP, the `Host` header keeps the real host, and for https Bun's `tls.serverName` keeps the SNI and
 *   the certificate check on the real hostname (Bun's fetch verifies the certificate against `tls.serverName` when
 *   set, else the URL host, never the Host header — oven-sh/bun#35886; its keep-alive pool keys on the server name,
 *   so a connection verified for one name is never reused for another: test/integration/net-policy.test.ts).
 * - Redirects are followed here (`redirect: "manual"` below), at most `maxRedirects`, each target checked like the
 *   first URL; credentials (`Authorization`, `Cookie`, `Proxy-Authorization`) are not carried to another origin.
 * - Of the caller's init only `method`, `headers`, `body`, `signal` and `redirect` are used: Bun's own options
 *   (`unix` sockets, `proxy`, `tls` with `rejectUnauthorized: false`, …) would bypass the policy and are dropped.
 *
 * A refusal rejects with NetworkPolicyError (its `reason` says why); the caller turns it into the model's tool error.
 * Size and time caps are the caller's (pass a `signal`).
 */
import { lookup } from "node:dns/promises";
import { ConfigError } from "../config/load.ts";
import type { FetchFunction } from "../registry/helpers.ts";
import { untilAborted } from "../util/until-aborted.ts";
import { AllowListError, formatIp, parseAllowList, parseHost, refusalReason, type AllowList, type IpAddress } from "./address.ts";
import { NetworkPolicyError } from "./policy-error.ts";

export { NetworkPolicyError } from "./policy-error.ts";

export interface SafeFetchOptions {
  /** CIDR ranges or single addresses that may be reached although private (config `network.allow_private`). */
  allowPrivate: readonly string[];
  /** Host name → addresses (default: the system resolver, every address). Tests stub DNS here. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** The fetch that does the I/O (default: Bun's global fetch, which honours `tls.serverName`). */
  fetch?: FetchFunction;
  /** Redirects followed before the fetch is refused (default 5). */
  maxRedirects?: number;
}

/** The system resolver: every address of the name, in the order getaddrinfo gives them. */
export async function resolveHost(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers describing a request body, dropped when a redirect turns the request into a GET (Fetch §4.4). */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];
/** Never carried to another origin by a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Connection failures after which the next resolved address is tried (nothing was sent). */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused", "FailedToOpenSocket"]);

interface PendingRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: RequestInit["body"];
  signal: AbortSignal | undefined;
  redirect: NonNullable<RequestInit["redirect"]>;
}

/**
 * A fetch under the network policy. Throws a ConfigError naming `network.allow_private[i]` when an entry is no
 * address or CIDR range (call it at start-up).
 */
export function createSafeFetch(options: SafeFetchOptions): FetchFunction {
  let allow: AllowList;
  try {
    allow = parseAllowList(options.allowPrivate);
  } catch (error) {
    if (error instanceof AllowListError) throw new ConfigError(error.message);
    throw error;
  }
  const resolve = options.resolve ?? resolveHost;
  const send: FetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
  const maxRedirects = options.maxRedirects ?? 5;

  /** The checked addresses to connect to, or a NetworkPolicyError. */
  async function addressesOf(url: URL, signal: AbortSignal | undefined): Promise<IpAddress[]> {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new NetworkPolicyError(`scheme "${url.protocol}" is not allowed (http and https only)`, url.href);
    }
    const literal = parseHost(url.hostname);
    if (literal) {
      const reason = refusalReason(literal, allow);
      if (reason) throw new NetworkPolicyError(reason, url.href);
      return [literal];
    }
    let answers: string[];
    try {
      // A lookup cannot be cancelled, only left behind.
      answers = await untilAborted(resolve(url.hostname), signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Error(`could not resolve ${url.hostname}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    if (answers.length === 0) throw new Error(`could not resolve ${url.hostname}: no addresses`);
    const addresses: IpAddress[] = [];
    for (const answer of answers) {
      const parsed = parseHost(answer);
      const reason = refusalReason(parsed ?? answer, allow);
      if (reason || !parsed) throw new NetworkPolicyError(`${url.hostname} resolves to ${reason}`, url.href);
      if (!addresses.some((known) => formatIp(known) === formatIp(parsed))) addresses.push(parsed);
    }
    return addresses;
  }

  /** One request to one checked address, the real host kept in `Host` and (https) in the TLS server name. */
  function sendTo(request: PendingRequest, address: IpAddress): Promise<Response> {
    const { url } = request;
    const target = new URL(url.href);
    const ip = formatIp(address);
    target.hostname = address.family === 6 ? `[${ip}]` : ip;
    const headers = new Headers(request.headers);
    headers.set("host", url.host);
    const init: RequestInit & { tls?: { serverName: string } } = { method: request.method, headers, body: request.body, redirect: "manual" };
    if (request.signal) init.signal = request.signal;
    // An IP-literal URL is verified against its IP as usual; a name is verified (and sent as SNI) as itself.
    if (url.protocol === "https:" && !parseHost(url.hostname)) init.tls = { serverName: url.hostname.replace(/\.$/, "") };
    return send(target.href, init);
  }

  /** Tries the addresses in order while the connection itself fails (nothing sent yet). */
  async function connect(request: PendingRequest, addresses: IpAddress[]): Promise<Response> {
    for (let i = 0; ; i++) {
      try {
        return await sendTo(request, addresses[i]!);
      } catch (error) {
        const code = (error as { code?: unknown })?.code;
        const retry =
          i + 1 < addresses.length && !request.signal?.aborted && !(request.body instanceof ReadableStream) && typeof code === "string" && CONNECT_FAILURES.has(code);
        if (!retry) throw error;
      }
    }
  }

  return async function safeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = await pendingRequest(input, init);
    for (let redirects = 0; ; redirects++) {
      request.signal?.throwIfAborted();
      const response = await connect(request, await addressesOf(request.url, request.signal));
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
      if (location === null || request.redirect === "manual") return withUrl(response, request.url, redirects > 0);
      await response.body?.cancel().catch(() => undefined);
      if (request.redirect === "error") throw new TypeError(`fetch of ${request.url.href} was redirected (redirect: "error")`);
      let next: URL;
      try {
        next = new URL(location, request.url);
      } catch {
        throw new NetworkPolicyError(`redirect to an invalid URL ${JSON.stringify(location.slice(0, 200))}`, request.url.href);
      }
      if (redirects >= maxRedirects) throw new NetworkPolicyError(`more than ${maxRedirects} redirects`, next.href);
      followRedirect(request, response.status, next);
    }
  };
}

/** The request a fetch call describes; a Request's body is read once so that a 307/308 can send it again. */
async function pendingRequest(input: string | URL | Request, init: RequestInit | undefined): Promise<PendingRequest> {
  const isRequest = input instanceof Request;
  let url: URL;
  try {
    url = new URL(isRequest ? input.url : input);
  } catch {
    throw new NetworkPolicyError("not a valid absolute URL", String(isRequest ? input.url : input).slice(0, 200));
  }
  const method = init?.method ?? (isRequest ? input.method : "GET");
  const headers = new Headers(init?.headers ?? (isRequest ? input.headers : undefined));
  headers.delete("host");
  let body: RequestInit["body"] = init?.body ?? null;
  if (init?.body === undefined && isRequest && input.body !== null) body = await input.arrayBuffer();
  const signal = init?.signal ?? (isRequest ? input.signal : undefined) ?? undefined;
  const redirect = init?.redirect ?? (isRequest ? input.redirect : "follow");
  return { url, method, headers, body, signal, redirect };
}

/** Fetch §4.4 HTTP-redirect fetch, steps 11–13: method and body rewrites, credentials kept to the origin. */
function followRedirect(request: PendingRequest, status: number, next: URL): void {
  const method = request.method.toUpperCase();
  if ((status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    request.method = "GET";
    request.body = null;
    for (const name of BODY_HEADERS) request.headers.delete(name);
  } else if (request.body instanceof ReadableStream) {
    throw new Error(`${status} redirect of ${request.url.href}: a streamed request body cannot be sent again`);
  }
  if (next.origin !== request.url.origin) for (const name of CREDENTIAL_HEADERS) request.headers.delete(name);
  request.url = next;
}

/** The response as its caller expects it: `url` is the real URL (not the IP it went to), `redirected` set. */
function withUrl(response: Response, url: URL, redirected: boolean): Response {
  try {
    Object.defineProperty(response, "url", { value: url.href, enumerable: true, configurable: true });
    if (redirected) Object.defineProperty(response, "redirected", { value: true, enumerable: true, configurable: true });
  } catch {
    // A frozen response (a test fake) keeps its own values.
  }
  return response;
}
