/**
 * One HTTP/1.1 connection to an upstream (Bun.connect, plain or TLS) and the keep-alive pool it returns to.
 *
 * Why not `fetch`: Bun's fetch hands each response body to JavaScript through a native reader that allocates
 * 64–256 KB per open body. With a thousand long-lived LLM streams that buffer alone costs 35–40 MB, most of the
 * gateway's per-stream memory (bench/, README "Performance"). A socket delivers exactly the bytes that arrived.
 *
 * The socket handlers are one shared object (Bun's design: no closures per socket); per-connection state lives in
 * `socket.data`.
 */
import type { Socket, SocketHandler } from "bun";
import { ResponseParseError } from "./response-parser.ts";

/** What a connection is doing right now: the in-flight exchange receives its bytes and its end. */
export interface ConnectionUser {
  data(bytes: Uint8Array): void;
  /** The socket closed or failed; `error` is set when it failed. */
  closed(error: Error | undefined): void;
  /** The socket can take more of a request body. */
  drain(): void;
}

export class Connection {
  socket: Socket<Connection> | undefined;
  user: ConnectionUser | undefined;
  isClosed = false;
  /** Requests this connection has carried (a reused connection may have been closed by the server meanwhile). */
  uses = 0;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Why the TLS handshake was refused (an untrusted certificate, a wrong name): reported instead of a bare reset. */
  tlsError: Error | undefined;

  constructor(readonly origin: string) {}

  /** Ends the connection at once (a client abort, a broken response, an unreusable exchange). */
  destroy(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.user = undefined;
    this.socket?.terminate();
  }
}

const handlers: SocketHandler<Connection> = {
  data(socket, bytes) {
    const user = socket.data.user;
    // Bytes on an idle kept-alive connection belong to no request: the connection is out of step, drop it.
    if (user) user.data(bytes);
    else socket.data.destroy();
  },
  drain(socket) {
    socket.data.user?.drain();
  },
  end(socket) {
    // The server sent FIN. On an idle kept-alive connection that is its idle time-out: marked closed at once, so
    // the next request takes a fresh connection instead of writing into one the server already gave up (a request
    // written there could only fail, and is never re-sent: fetch.ts). During an exchange it ends a body delimited
    // by the connection's close.
    const connection = socket.data;
    connection.isClosed = true;
    const user = connection.user;
    connection.user = undefined;
    user?.closed(undefined);
    socket.terminate();
  },
  close(socket, error) {
    const connection = socket.data;
    connection.isClosed = true;
    const user = connection.user;
    connection.user = undefined;
    user?.closed(error ?? connection.tlsError);
  },
  handshake(socket, success, authorizationError) {
    if (success && !authorizationError) return;
    const reason = authorizationError ?? new Error("TLS handshake failed");
    socket.data.tlsError = connectionError(`upstream TLS handshake failed: ${reason.message}`, (reason as Error & { code?: string }).code ?? "ERR_TLS_HANDSHAKE", reason);
  },
  error(socket, error) {
    const connection = socket.data;
    connection.isClosed = true;
    const user = connection.user;
    connection.user = undefined;
    user?.closed(error);
  },
  connectError(socket, error) {
    socket.data.isClosed = true;
    // Bun.connect's promise rejects with the same error; nothing else to tell.
    void error;
  },
};

export interface TlsSettings {
  /** Extra trusted CA certificates (PEM), e.g. a private upstream's. */
  ca?: string | string[];
  /** A client certificate (PEM) and its key, for upstreams that authenticate the gateway by mutual TLS. */
  cert?: string;
  key?: string;
  /** The name sent in SNI and checked against the certificate, when it is not the URL's host (an IP, a tunnel). */
  serverName?: string;
  rejectUnauthorized?: boolean;
}

export interface PoolOptions {
  /** Idle connections kept per origin. */
  maxIdlePerOrigin: number;
  /** An idle connection is closed after this long (servers close theirs too; 5 s is Node's default keep-alive). */
  idleTimeoutMs: number;
  tls?: TlsSettings;
}

export class ConnectionPool {
  private readonly idle = new Map<string, Connection[]>();

  constructor(private readonly options: PoolOptions) {}

  /**
   * An idle connection to `url`'s origin, or a new one. A call's own TLS settings (a provider's CA, client
   * certificate, server name) replace the pool's; connections are kept apart per settings, so one provider's
   * client certificate never carries another's request.
   */
  async acquire(url: URL, own?: TlsSettings): Promise<Connection> {
    const tls = own ?? this.options.tls;
    const origin = own ? `${url.origin} ${tlsIdentity(own)}` : url.origin;
    const list = this.idle.get(origin);
    while (list && list.length > 0) {
      const connection = list.pop()!;
      clearTimeout(connection.idleTimer);
      connection.idleTimer = undefined;
      if (!connection.isClosed) return connection;
    }
    const connection = new Connection(origin);
    const secure = url.protocol === "https:";
    const port = url.port ? Number(url.port) : secure ? 443 : 80;
    // Brackets of an IPv6 literal are URL syntax, not part of the address.
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    connection.socket = await Bun.connect<Connection>({
      hostname,
      port,
      data: connection,
      socket: handlers,
      ...(secure ? { tls: socketTls(tls, hostname) } : {}),
    });
    connection.socket.setNoDelay(true);
    return connection;
  }

  /** Puts a connection whose exchange completed cleanly back for the next request to its origin. */
  release(connection: Connection): void {
    connection.user = undefined;
    if (connection.isClosed) return;
    let list = this.idle.get(connection.origin);
    if (!list) this.idle.set(connection.origin, (list = []));
    if (list.length >= this.options.maxIdlePerOrigin) {
      connection.destroy();
      return;
    }
    list.push(connection);
    connection.idleTimer = setTimeout(() => {
      const at = list.indexOf(connection);
      if (at !== -1) list.splice(at, 1);
      connection.destroy();
    }, this.options.idleTimeoutMs);
    connection.idleTimer.unref?.();
  }

  /** Closes every idle connection (shutdown). */
  close(): void {
    for (const list of this.idle.values()) {
      for (const connection of list) {
        clearTimeout(connection.idleTimer);
        connection.destroy();
      }
    }
    this.idle.clear();
  }
}

/** Bun's socket TLS options for one set of settings: verified against the system roots plus `ca`, by default. */
function socketTls(tls: TlsSettings | undefined, hostname: string): Record<string, unknown> {
  return {
    serverName: tls?.serverName ?? hostname,
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.cert ? { cert: tls.cert } : {}),
    ...(tls?.key ? { key: tls.key } : {}),
    rejectUnauthorized: tls?.rejectUnauthorized ?? true,
  };
}

/** Settings objects come from the config (one per provider) and live as long as the process: numbered once each. */
const identities = new WeakMap<TlsSettings, string>();
let nextIdentity = 0;

function tlsIdentity(tls: TlsSettings): string {
  let id = identities.get(tls);
  if (id === undefined) identities.set(tls, (id = `tls#${++nextIdentity}`));
  return id;
}

/** A transport failure in the shape `transportFailure` classifies: an Error with a `code`. */
export function connectionError(message: string, code: string, cause?: unknown): Error {
  const error = new ResponseParseError(message, code);
  if (cause !== undefined) (error as Error & { cause?: unknown }).cause = cause;
  return error;
}
