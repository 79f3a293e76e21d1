/**
 * A `fetch` for upstream provider calls, on HTTP/1.1 keep-alive sockets (see connection.ts for why). It takes what
 * the adapters send — a URL string or URL, a method, headers, a string or byte body, a signal — and answers with a
 * standard Response whose body is a plain ReadableStream fed straight from the socket (with back-pressure: the
 * socket pauses while the reader is behind).
 *
 * Anything else — a Request object, a streamed or form body, a non-HTTP URL, an HTTP(S)_PROXY environment — goes
 * to the fallback (Bun's fetch), so nothing a caller could rely on is lost. Differences from fetch, on purpose:
 * redirects are returned, not followed (provider APIs do not redirect POSTs), and `accept-encoding: identity` is
 * sent unless the caller set an encoding (a compressed reply is still decoded: gzip, deflate, br and zstd; any
 * other encoding fails the call rather than hand on bytes nobody can read).
 *
 * A request is sent once. The one exception is a request that provably never left: the socket did not take all of
 * its bytes (a kept-alive connection the server had closed). A reset after the whole request was handed over may
 * come after the upstream started generating — and billing — it, so it fails like any transport error and routing
 * decides, counting it as an attempt.
 *
 * A call may carry Bun's `tls` option (`{ca, cert, key, serverName, rejectUnauthorized}`): the turn passes a
 * provider's TLS settings that way, so both this client and Bun's fetch honour them.
 */
import type { Logger } from "pino";
import { Connection, ConnectionPool, connectionError, type TlsSettings } from "./connection.ts";
import { ResponseParser, type ResponseHead } from "./response-parser.ts";

export interface UpstreamFetchOptions {
  maxIdlePerOrigin?: number;
  idleTimeoutMs?: number;
  tls?: TlsSettings;
  /** Used for what this client does not handle; defaults to the global fetch. */
  fallback?: typeof fetch;
  /** Environment read for proxy settings (tests pass their own). */
  env?: Record<string, string | undefined>;
  /** Told once when a proxy setting moves every call to the fallback. */
  logger?: Pick<Logger, "info">;
}

export type UpstreamFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  /** Closes idle connections. */
  close(): void;
};

const encoder = new TextEncoder();
/** Final statuses that must not carry a body (the Response constructor rejects one; the parser skips 1xx). */
const NULL_BODY = new Set([204, 205, 304]);
/** Proxy settings, which only Bun's fetch honours. (NODE_EXTRA_CA_CERTS needs no fallback: Bun's TLS sockets use it too.) */
const FALLBACK_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"];
/** Content encodings decoded (Bun's DecompressionStream formats); `br` is Bun's "brotli". */
const DECODERS: Record<string, string> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli", zstd: "zstd" };
/** Chunks queued for a slow reader before the socket is paused. */
const QUEUED_CHUNKS = 16;

export function createUpstreamFetch(options: UpstreamFetchOptions = {}): UpstreamFetch {
  const pool = new ConnectionPool({
    maxIdlePerOrigin: options.maxIdlePerOrigin ?? 256,
    idleTimeoutMs: options.idleTimeoutMs ?? 4000,
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const fallback = options.fallback ?? globalThis.fetch;
  const env = options.env ?? process.env;
  // Decided once: such a setting means every call goes through the fetch that honours it.
  const proxySettings = FALLBACK_VARIABLES.filter((name) => Boolean(env[name]));
  const proxied = proxySettings.length > 0;
  // An operator who set a proxy for something else must be able to see why streams now cost more memory.
  if (proxied) {
    options.logger?.info(
      { variables: proxySettings },
      "upstream: a proxy is set in the environment, so every provider call goes through Bun's fetch (which honours it) instead of the gateway's own HTTP client",
    );
  }

  const upstreamFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    const url = typeof input === "string" ? URL.parse(input) : input instanceof URL ? input : null;
    const plainBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer;
    if (proxied || !url || !plainBody || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) {
      return fallback(input, init);
    }
    const bytes = body === undefined || body === null ? undefined : typeof body === "string" ? encoder.encode(body) : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
    const tls = (init as { tls?: TlsSettings }).tls;
    const request: OutgoingRequest = { url, method: (init.method ?? "GET").toUpperCase(), headers: init.headers, body: bytes, signal: init.signal ?? undefined, tls };
    return send(pool, request, true);
  };
  return Object.assign(upstreamFetch, { close: () => pool.close() });
}

interface OutgoingRequest {
  url: URL;
  method: string;
  headers: RequestInit["headers"];
  body: Uint8Array | undefined;
  signal: AbortSignal | undefined;
  /** This call's own TLS settings (a provider's), else the pool's. */
  tls: TlsSettings | undefined;
}

async function send(pool: ConnectionPool, request: OutgoingRequest, mayRetry: boolean): Promise<Response> {
  const { signal } = request;
  signal?.throwIfAborted();
  // Built first: a header fetch would refuse is refused before a connection is taken.
  const requestHead = head(request);
  let connection: Connection;
  try {
    const acquiring = pool.acquire(request.url, request.tls);
    connection = await (signal ? abortable(acquiring, signal) : acquiring);
  } catch (thrown) {
    signal?.throwIfAborted();
    throw thrown;
  }
  connection.uses++;
  const exchange = new Exchange(pool, connection, request, requestHead);
  try {
    return await exchange.response;
  } catch (thrown) {
    // A kept-alive connection the server had closed while it sat idle: sent again on a fresh connection, but only
    // when the socket did not take the whole request, so no upstream can have received it (and billed it). Once
    // every byte was handed over, the server may already be generating: that is the caller's failure to judge.
    if (mayRetry && connection.uses > 1 && !exchange.handedOver && !exchange.answered && !signal?.aborted && isReset(thrown)) return send(pool, request, false);
    throw thrown;
  }
}

/**
 * A connection attempt the caller may abandon: an unreachable host can take the system's whole connect timeout
 * (minutes), and a request's deadline or its client going away must not wait for that. A connection that arrives
 * after the abort is closed.
 */
export function abortable(connecting: Promise<Connection>, signal: AbortSignal): Promise<Connection> {
  if (signal.aborted) {
    void connecting.then((late) => late.destroy(), () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<Connection>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    connecting.then(
      (connection) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) connection.destroy();
        else resolve(connection);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function isReset(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE";
}

/** One request/response on one connection. */
class Exchange {
  readonly response: Promise<Response>;
  /** True once any byte of the answer arrived. */
  answered = false;
  /** True once the socket took every byte of the request (it may have reached the upstream from then on). */
  handedOver = false;
  private resolve!: (response: Response) => void;
  private reject!: (error: unknown) => void;
  private readonly parser: ResponseParser;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Request bytes not yet taken by the socket (see requestBytes). */
  private readonly unsent: Uint8Array[];
  private paused = false;
  private finished = false;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly pool: ConnectionPool,
    private readonly connection: Connection,
    private readonly request: OutgoingRequest,
    requestHead: Uint8Array,
  ) {
    this.response = new Promise<Response>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.parser = new ResponseParser(
      { head: (head) => this.onHead(head), body: (bytes) => this.onBody(bytes), end: (reusable) => this.onEnd(reusable) },
      request.method === "HEAD",
    );
    const { signal } = request;
    if (signal) {
      this.onAbort = () => this.fail(signal.reason);
      signal.addEventListener("abort", this.onAbort, { once: true });
    }
    connection.user = this;
    this.unsent = requestBytes(requestHead, request.body);
    this.flush();
  }

  data(bytes: Uint8Array): void {
    if (this.finished) return;
    this.answered = true;
    try {
      this.parser.push(bytes);
    } catch (thrown) {
      this.fail(thrown);
    }
  }

  closed(error: Error | undefined): void {
    if (this.finished) return;
    if (error) {
      this.fail(error);
      return;
    }
    try {
      this.parser.close();
    } catch (thrown) {
      this.fail(thrown);
    }
  }

  drain(): void {
    if (!this.finished) this.flush();
  }

  /** Writes what the socket takes now; the rest waits for `drain`. */
  private flush(): void {
    const socket = this.connection.socket;
    const unsent = this.unsent;
    while (unsent.length > 0) {
      const bytes = unsent[0]!;
      const written = socket ? socket.write(bytes) : -1;
      if (written < 0) {
        this.fail(connectionError("upstream connection closed while sending", "EPIPE"));
        return;
      }
      if (written < bytes.length) {
        unsent[0] = bytes.subarray(written);
        return;
      }
      unsent.shift();
    }
    this.handedOver = true;
  }

  private onHead(head: ResponseHead): void {
    const headers = new Headers();
    for (const [name, value] of head.headers) headers.append(name, value);
    const status = head.status;
    if (NULL_BODY.has(status) || this.request.method === "HEAD") {
      this.resolve(new Response(null, { status, statusText: head.statusText, headers }));
      return;
    }
    let body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          if (this.paused) {
            this.paused = false;
            this.connection.socket?.resume();
          }
        },
        cancel: () => {
          // The reader gave up on the body: the connection has unread bytes, so it cannot be reused.
          this.controller = undefined;
          this.cleanup();
          this.connection.destroy();
        },
      },
      { highWaterMark: QUEUED_CHUNKS },
    );
    const encoding = headers.get("content-encoding")?.trim().toLowerCase();
    if (encoding && encoding !== "identity") {
      const format = DECODERS[encoding];
      if (!format) {
        // Undecodable bytes would reach the adapter as a broken body; a transport failure says what happened.
        this.fail(connectionError(`upstream answered with an unsupported content-encoding: ${encoding.slice(0, 40)}`, "ERR_CONTENT_ENCODING"));
        return;
      }
      body = body.pipeThrough(new DecompressionStream(format as ConstructorParameters<typeof DecompressionStream>[0]) as unknown as Parameters<typeof body.pipeThrough<Uint8Array>>[0]);
      headers.delete("content-encoding");
      headers.delete("content-length");
    }
    this.resolve(new Response(body, { status: status > 599 ? 502 : status, statusText: head.statusText, headers }));
  }

  private onBody(bytes: Uint8Array): void {
    const controller = this.controller;
    if (!controller || bytes.length === 0) return;
    controller.enqueue(bytes);
    if (!this.paused && (controller.desiredSize ?? 1) <= 0) {
      this.paused = true;
      this.connection.socket?.pause();
    }
  }

  private onEnd(reusable: boolean): void {
    this.finished = true;
    this.cleanup();
    this.controller?.close();
    this.controller = undefined;
    if (this.paused) this.connection.socket?.resume();
    if (reusable && this.unsent.length === 0) this.pool.release(this.connection);
    else this.connection.destroy();
  }

  /** Ends the exchange with an error: the pending response rejects, or the body stream errors. */
  private fail(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.cleanup();
    this.connection.destroy();
    this.reject(error);
    try {
      this.controller?.error(error);
    } catch {
      // already closed by the reader
    }
    this.controller = undefined;
  }

  private cleanup(): void {
    if (this.onAbort) this.request.signal?.removeEventListener("abort", this.onAbort);
  }
}

/** Bodies up to this size go out in the same write as the head: one send() instead of two on the event loop. */
const COALESCE_BYTES = 64 * 1024;

/** What to write: head and body together when the body is small, else the two apart (a big body is not copied). */
function requestBytes(head: Uint8Array, body: Uint8Array | undefined): Uint8Array[] {
  if (!body || body.length === 0) return [head];
  if (body.length > COALESCE_BYTES) return [head, body];
  const joined = new Uint8Array(head.length + body.length);
  joined.set(head, 0);
  joined.set(body, head.length);
  return [joined];
}

/** The request line and headers; `host`, `content-length` and `connection` are ours to set. */
function head(request: OutgoingRequest): Uint8Array {
  const { url, method, body } = request;
  let text = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  let hasEncoding = false;
  let hasAccept = false;
  const add = (name: string, value: string) => {
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "connection" || lower === "transfer-encoding") return;
    // The same rule fetch enforces: a header must not be able to inject another one.
    if (/[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`Invalid header: ${name}`);
    if (lower === "accept-encoding") hasEncoding = true;
    else if (lower === "accept") hasAccept = true;
    text += `${name}: ${value}\r\n`;
  };
  const headers = request.headers;
  if (headers instanceof Headers) headers.forEach((value, name) => add(name, value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) add(name!, value!);
  else if (headers) for (const name in headers) add(name, (headers as Record<string, string>)[name]!);
  if (!hasEncoding) text += "accept-encoding: identity\r\n";
  if (!hasAccept) text += "accept: */*\r\n";
  if (body !== undefined || (method !== "GET" && method !== "HEAD")) text += `content-length: ${body?.length ?? 0}\r\n`;
  text += "connection: keep-alive\r\n\r\n";
  return encoder.encode(text);
}
