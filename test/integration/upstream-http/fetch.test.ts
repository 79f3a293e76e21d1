/**
 * core/upstream-http/fetch.ts through real loopback servers: Bun.serve where a normal HTTP server will do, and raw
 * Bun.listen servers where a test needs the exact bytes on the wire, a connection count, or a misbehaving upstream.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Server, Socket, TCPSocketListener } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { createUpstreamFetch, type UpstreamFetch, type UpstreamFetchOptions } from "../../../core/upstream-http/fetch.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------------------------------------------
// Clients and servers made by a test are closed after it.

const clients: UpstreamFetch[] = [];
const cleanups: Array<() => void> = [];

function client(options: UpstreamFetchOptions = {}): UpstreamFetch {
  const upstreamFetch = createUpstreamFetch({ env: {}, ...options });
  clients.push(upstreamFetch);
  return upstreamFetch;
}

afterEach(() => {
  for (const upstreamFetch of clients.splice(0)) upstreamFetch.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function serve(fetchHandler: (request: Request, server: Server<undefined>) => Response | Promise<Response>): Server<undefined> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: fetchHandler });
  cleanups.push(() => void server.stop(true));
  return server;
}

/** Resolves once `predicate` holds (polled every few ms), failing after `timeoutMs`. */
async function until(predicate: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A raw HTTP/1.1 server: parses requests well enough for these tests and hands each to `onRequest` with its socket.

interface RawRequest {
  method: string;
  target: string;
  /** The head as received, request line included, up to (not including) the blank line. */
  head: string;
  headers: Array<[string, string]>;
  body: Uint8Array;
  /** Which connection (1-based, in accept order) carried it, and its index on that connection (1-based). */
  connection: number;
  onConnection: number;
}

interface RawConnection {
  id: number;
  buffer: Uint8Array;
  requests: number;
  closed: boolean;
  /** Free-form per-connection state for a test's handler. */
  state: Record<string, unknown>;
  drain?: () => void;
}

interface RawServer {
  url: string;
  port: number;
  requests: RawRequest[];
  connections: RawConnection[];
  listener: TCPSocketListener<RawConnection>;
}

type RawHandler = (socket: Socket<RawConnection>, request: RawRequest) => void;

function rawServer(onRequest: RawHandler): RawServer {
  const connections: RawConnection[] = [];
  const requests: RawRequest[] = [];
  const listener = Bun.listen<RawConnection>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        const connection: RawConnection = { id: connections.length + 1, buffer: new Uint8Array(0), requests: 0, closed: false, state: {} };
        connections.push(connection);
        socket.data = connection;
      },
      data(socket, chunk) {
        const connection = socket.data;
        const joined = new Uint8Array(connection.buffer.length + chunk.length);
        joined.set(connection.buffer, 0);
        joined.set(chunk, connection.buffer.length);
        connection.buffer = joined;
        for (;;) {
          const request = takeRequest(connection);
          if (!request) break;
          requests.push(request);
          onRequest(socket, request);
          if (connection.closed) break;
        }
      },
      drain(socket) {
        socket.data.drain?.();
      },
      close(socket) {
        socket.data.closed = true;
      },
      error(socket) {
        socket.data.closed = true;
      },
    },
  });
  cleanups.push(() => listener.stop(true));
  return { url: `http://127.0.0.1:${listener.port}`, port: listener.port, requests, connections, listener };
}

/** The next complete request in the connection's buffer (content-length framing only), removed from it. */
function takeRequest(connection: RawConnection): RawRequest | undefined {
  const buffer = connection.buffer;
  let end = -1;
  for (let i = 0; i + 3 < buffer.length; i++) {
    if (buffer[i] === 13 && buffer[i + 1] === 10 && buffer[i + 2] === 13 && buffer[i + 3] === 10) {
      end = i;
      break;
    }
  }
  if (end === -1) return undefined;
  const head = decoder.decode(buffer.subarray(0, end));
  const [requestLine = "", ...lines] = head.split("\r\n");
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  });
  const length = Number(headers.find(([name]) => name === "content-length")?.[1] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  const body = buffer.slice(end + 4, end + 4 + length);
  connection.buffer = buffer.slice(end + 4 + length);
  const [method = "", target = ""] = requestLine.split(" ");
  connection.requests++;
  return { method, target, head, headers, body, connection: connection.id, onConnection: connection.requests };
}

/** A complete keep-alive response with a content-length body. */
function okResponse(body: string, extraHeaders: string[] = []): string {
  return ["HTTP/1.1 200 OK", "content-type: text/plain", `content-length: ${Buffer.byteLength(body)}`, ...extraHeaders, "", body].join("\r\n");
}

// ---------------------------------------------------------------------------------------------------------------

describe("requests arrive intact", () => {
  test("a POST JSON body and the caller's headers; host and content-length set by the client, the caller's ignored", async () => {
    const server = rawServer((socket) => void socket.write(okResponse('{"ok":true}', ["content-type: application/json"])));
    const upstreamFetch = client();
    const payload = JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "héllo ✓ — 你好" }], stream: false });
    const response = await upstreamFetch(`${server.url}/v1/chat/completions?api-version=2024-10-21`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: "Bearer sk-test-123",
        "X-Title": "a: b, c",
        "Content-Length": "999",
        Host: "evil.example",
        Connection: "close",
      },
      body: payload,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.head.split("\r\n")[0]).toBe("POST /v1/chat/completions?api-version=2024-10-21 HTTP/1.1");
    const headerNames = request.headers.map(([name]) => name);
    // Exactly one of each framing header, with the client's values.
    for (const name of ["host", "content-length", "connection"]) expect(headerNames.filter((n) => n === name)).toEqual([name]);
    const header = (name: string) => request.headers.find(([n]) => n === name)?.[1];
    expect(header("host")).toBe(`127.0.0.1:${server.port}`);
    expect(header("content-length")).toBe(String(Buffer.byteLength(payload)));
    expect(header("connection")).toBe("keep-alive");
    expect(header("content-type")).toBe("application/json");
    expect(header("authorization")).toBe("Bearer sk-test-123");
    expect(header("x-title")).toBe("a: b, c");
    expect(header("accept-encoding")).toBe("identity");
    expect(header("accept")).toBe("*/*");
    expect(decoder.decode(request.body)).toBe(payload);
  });

  test("the caller's accept and accept-encoding are kept (not doubled); Headers and tuple lists work too", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("ok")));
    const upstreamFetch = client();
    await (await upstreamFetch(server.url, { headers: new Headers({ Accept: "text/event-stream", "Accept-Encoding": "br" }) })).text();
    await (await upstreamFetch(new URL(`${server.url}/tuples`), { method: "put", headers: [["x-a", "1"], ["x-b", "2"]], body: new Uint8Array([1, 2, 3]) })).text();

    const [first, second] = server.requests;
    expect(first!.headers.filter(([name]) => name === "accept")).toEqual([["accept", "text/event-stream"]]);
    expect(first!.headers.filter(([name]) => name === "accept-encoding")).toEqual([["accept-encoding", "br"]]);
    // A GET without a body sends no content-length.
    expect(first!.headers.some(([name]) => name === "content-length")).toBe(false);
    expect(first!.head.split("\r\n")[0]).toBe("GET / HTTP/1.1");

    expect(second!.head.split("\r\n")[0]).toBe("PUT /tuples HTTP/1.1");
    expect(second!.headers).toContainEqual(["x-a", "1"]);
    expect(second!.headers).toContainEqual(["x-b", "2"]);
    expect([...second!.body]).toEqual([1, 2, 3]);
  });

  test("a 5 MB request body arrives byte-exact (partial writes and drain)", async () => {
    const size = 5 * 1024 * 1024;
    const payload = new Uint8Array(size);
    // A deterministic pattern no shorter period could fake.
    for (let i = 0; i < size; i++) payload[i] = (i * 2654435761) >>> 24;
    let received: { length: number; digest: string } | undefined;
    const server = serve(async (request) => {
      const bytes = new Uint8Array(await request.arrayBuffer());
      received = { length: bytes.length, digest: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
      return new Response("stored");
    });
    const upstreamFetch = client();
    const response = await upstreamFetch(`http://127.0.0.1:${server.port}/upload`, { method: "POST", body: payload.buffer });
    expect(await response.text()).toBe("stored");
    expect(received).toEqual({ length: size, digest: new Bun.CryptoHasher("sha256").update(payload).digest("hex") });
  });
});

describe("response bodies", () => {
  test("a status above 599 (no Response can carry it) arrives as 502 with its body; one below 100 is refused", async () => {
    const high = rawServer((socket) => void socket.write("HTTP/1.1 799 Odd\r\ncontent-length: 2\r\n\r\nhi"));
    const upstreamFetch = client();
    const response = await upstreamFetch(`http://127.0.0.1:${high.port}/x`, { method: "POST", body: "{}" });
    expect(response.status).toBe(502);
    expect(await response.text()).toBe("hi");
    const low = rawServer((socket) => void socket.write("HTTP/1.1 042 Low\r\ncontent-length: 0\r\n\r\n"));
    const error = (await upstreamFetch(`http://127.0.0.1:${low.port}/x`, { method: "POST", body: "{}" }).catch((e: unknown) => e)) as { code?: string };
    expect(error.code).toBe("HPE_INVALID_RESPONSE");
  });

  test("an SSE stream arrives incrementally: the first event is readable before the server sends the last", async () => {
    let releaseLast!: () => void;
    const lastMayGo = new Promise<void>((resolve) => (releaseLast = resolve));
    let lastSent = false;
    const server = serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(encoder.encode('data: {"delta":"Hel"}\n\n'));
              await lastMayGo;
              controller.enqueue(encoder.encode('data: {"delta":"lo"}\n\n'));
              lastSent = true;
              controller.enqueue(encoder.encode("data: [DONE]\n\n"));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const upstreamFetch = client();
    const response = await upstreamFetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, { method: "POST", body: "{}" });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(lastSent).toBe(false);
    expect(decoder.decode(first.value)).toBe('data: {"delta":"Hel"}\n\n');
    releaseLast();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).toBe('data: {"delta":"lo"}\n\ndata: [DONE]\n\n');
  });

  test("a gzip body is decoded (content-encoding and content-length dropped)", async () => {
    const text = JSON.stringify({ choices: [{ message: { content: "compressed ".repeat(500) } }] });
    const seen: { acceptEncoding: string | null } = { acceptEncoding: null };
    const server = serve((request) => {
      seen.acceptEncoding = request.headers.get("accept-encoding");
      return new Response(Bun.gzipSync(encoder.encode(text)), { headers: { "content-encoding": "gzip", "content-type": "application/json" } });
    });
    const upstreamFetch = client();
    const response = await upstreamFetch(`http://127.0.0.1:${server.port}/`);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("content-length")).toBeNull();
    expect(await response.text()).toBe(text);
    expect(seen.acceptEncoding).toBe("identity");
  });

  test("a deflate (zlib) body is decoded", async () => {
    const text = "deflated ".repeat(300);
    const server = serve(() => new Response(deflateSync(Buffer.from(text)), { headers: { "content-encoding": "deflate" } }));
    const upstreamFetch = client();
    expect(await (await upstreamFetch(`http://127.0.0.1:${server.port}/`, { headers: { "accept-encoding": "deflate" } })).text()).toBe(text);
  });

  test("204, 304 and HEAD answer with a null body, and leave the connection reusable", async () => {
    const server = rawServer((socket, request) => {
      if (request.target === "/204") socket.write("HTTP/1.1 204 No Content\r\nx-a: 1\r\n\r\n");
      else if (request.target === "/304") socket.write('HTTP/1.1 304 Not Modified\r\netag: "x"\r\n\r\n');
      else socket.write("HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n");
    });
    const upstreamFetch = client();
    const noContent = await upstreamFetch(`${server.url}/204`, { method: "DELETE" });
    expect(noContent.status).toBe(204);
    expect(noContent.body).toBeNull();
    expect(noContent.headers.get("x-a")).toBe("1");
    const notModified = await upstreamFetch(`${server.url}/304`);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    const head = await upstreamFetch(`${server.url}/head`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get("content-length")).toBe("1234");
    expect(server.connections).toHaveLength(1);
    expect(server.requests.map((r) => r.method)).toEqual(["DELETE", "GET", "HEAD"]);
  });

  test("a redirect is returned, not followed", async () => {
    const server = rawServer((socket) => void socket.write("HTTP/1.1 307 Temporary Redirect\r\nlocation: /elsewhere\r\ncontent-length: 0\r\n\r\n"));
    const upstreamFetch = client();
    const response = await upstreamFetch(`${server.url}/here`, { method: "POST", body: "x" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/elsewhere");
    expect(server.requests).toHaveLength(1);
  });
});

describe("keep-alive", () => {
  test("two sequential requests use one TCP connection", async () => {
    const server = rawServer((socket, request) => void socket.write(okResponse(`answer ${request.onConnection}`)));
    const upstreamFetch = client();
    expect(await (await upstreamFetch(`${server.url}/a`, { method: "POST", body: "1" })).text()).toBe("answer 1");
    expect(await (await upstreamFetch(`${server.url}/b`, { method: "POST", body: "2" })).text()).toBe("answer 2");
    expect(server.connections).toHaveLength(1);
    expect(server.requests.map((r) => [r.connection, r.target, decoder.decode(r.body)])).toEqual([
      [1, "/a", "1"],
      [1, "/b", "2"],
    ]);
  });

  test("a chunked answer read to its end also frees the connection for the next request", async () => {
    const server = rawServer((socket) => void socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
    const upstreamFetch = client();
    expect(await (await upstreamFetch(server.url)).text()).toBe("abc");
    expect(await (await upstreamFetch(server.url)).text()).toBe("abc");
    expect(server.connections).toHaveLength(1);
  });

  test("concurrent requests get their own connections, which are then reused", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("ok")));
    const upstreamFetch = client();
    const texts = await Promise.all([1, 2, 3].map(async () => (await upstreamFetch(server.url)).text()));
    expect(texts).toEqual(["ok", "ok", "ok"]);
    expect(server.connections).toHaveLength(3);
    await Promise.all([1, 2, 3].map(async () => (await upstreamFetch(server.url)).text()));
    expect(server.connections).toHaveLength(3);
  });

  test("connection: close from the server is honoured: the next request opens a new connection", async () => {
    const server = rawServer((socket) => {
      socket.write(okResponse("bye", ["connection: close"]));
      socket.end();
    });
    const upstreamFetch = client();
    expect(await (await upstreamFetch(server.url)).text()).toBe("bye");
    expect(await (await upstreamFetch(server.url)).text()).toBe("bye");
    expect(server.connections).toHaveLength(2);
    expect(server.requests.map((r) => r.onConnection)).toEqual([1, 1]);
  });

  test("a server that closes idle keep-alive connections: the next request still succeeds", async () => {
    const server = rawServer((socket) => {
      // Says keep-alive, then closes the connection right after (an idle timeout of ~0).
      socket.write(okResponse("ok"));
      socket.end();
    });
    const upstreamFetch = client();
    expect(await (await upstreamFetch(server.url)).text()).toBe("ok");
    await until(() => server.connections[0]!.closed, "the server to close the first connection");
    // Once the client has seen the FIN, the closed connection is never picked for the next request.
    await Bun.sleep(20);
    expect(await (await upstreamFetch(server.url)).text()).toBe("ok");
    expect(server.connections).toHaveLength(2);
  });

  // A request the socket took whole may already be generating (and billed) upstream, so a close
  // before any answer is the caller's failure to judge (routing counts it as an attempt), never a silent re-send.
  for (const [how, close] of [
    ["a FIN", (socket: { end(): void }) => socket.end()],
    ["a reset (RST)", (socket: { terminate(): void }) => socket.terminate()],
  ] as const) {
    test(`a reused connection closed with ${how} after it took the whole request: not re-sent, ECONNRESET`, async () => {
      const server = rawServer((socket, request) => {
        if (request.onConnection === 1) socket.write(okResponse("ok"));
        else close(socket);
      });
      const upstreamFetch = client();
      expect(await (await upstreamFetch(server.url, { method: "POST", body: "first" })).text()).toBe("ok");
      const error = await upstreamFetch(server.url, { method: "POST", body: "second" }).catch((thrown: unknown) => thrown);
      expect((error as { code?: string }).code).toBe("ECONNRESET");
      expect(server.requests.map((r) => [r.connection, r.onConnection, decoder.decode(r.body)])).toEqual([
        [1, 1, "first"],
        [1, 2, "second"],
      ]);
    });
  }

  test("a fresh connection closed before any answer is not retried: ECONNRESET", async () => {
    const server = rawServer((socket) => void socket.end());
    const upstreamFetch = client();
    const error = await upstreamFetch(server.url, { method: "POST", body: "x" }).catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe("ECONNRESET");
    expect(server.requests).toHaveLength(1);
  });

  test("a reused connection closed after part of an answer is not retried", async () => {
    const server = rawServer((socket, request) => {
      if (request.onConnection === 1) socket.write(okResponse("ok"));
      else {
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf");
        socket.end();
      }
    });
    const upstreamFetch = client();
    expect(await (await upstreamFetch(server.url)).text()).toBe("ok");
    const response = await upstreamFetch(server.url);
    const error = await response.text().catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe("ECONNRESET");
    expect(server.requests).toHaveLength(2);
  });

  test("a malformed answer rejects with the parser's error and the connection is not reused", async () => {
    const server = rawServer((socket, request) => {
      if (request.onConnection === 1 && request.connection === 1) socket.write("HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab");
      else socket.write(okResponse("fine"));
    });
    const upstreamFetch = client();
    const error = await upstreamFetch(server.url).catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe("HPE_INVALID_RESPONSE");
    expect(await (await upstreamFetch(server.url)).text()).toBe("fine");
    expect(server.connections).toHaveLength(2);
  });
});

describe("failures", () => {
  test("connection refused rejects with code ECONNREFUSED", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    const upstreamFetch = client();
    const error = await upstreamFetch(`http://127.0.0.1:${port}/`).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe("ECONNREFUSED");
  });

  test("a header value with CR/LF (or an invalid name) is a TypeError, before any connection is made", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("ok")));
    const upstreamFetch = client();
    const invalid: Array<Record<string, string>> = [{ "x-inject": "a\r\nx-evil: 1" }, { "x-inject": "a\nb" }, { "x-inject": "a\rb" }, { "bad name": "v" }, { "x-bad\r\nname": "v" }];
    for (const headers of invalid) {
      const error = await upstreamFetch(server.url, { headers }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TypeError);
    }
    expect(server.connections).toHaveLength(0);
  });

  test("abort before the response: rejects with the abort reason, and the connection is closed", async () => {
    const server = rawServer(() => {
      // Never answers.
    });
    const upstreamFetch = client();
    const controller = new AbortController();
    const pending = upstreamFetch(server.url, { method: "POST", body: "slow", signal: controller.signal });
    await until(() => server.requests.length === 1, "the request to arrive");
    const reason = new Error("caller gave up");
    controller.abort(reason);
    expect(await pending.catch((thrown: unknown) => thrown)).toBe(reason);
    await until(() => server.connections[0]!.closed, "the server to see the connection closed");
  });

  test("an already aborted signal rejects with its reason without connecting", async () => {
    const server = rawServer(() => {});
    const upstreamFetch = client();
    const reason = new Error("too late");
    expect(await upstreamFetch(server.url, { signal: AbortSignal.abort(reason) }).catch((thrown: unknown) => thrown)).toBe(reason);
    // Give a connection attempt the chance to show up.
    await Bun.sleep(20);
    expect(server.connections).toHaveLength(0);
  });

  test("abort mid-body: the reader rejects with the reason and the server sees the connection closed", async () => {
    const server = rawServer((socket) => void socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n7\r\ndata: 1\r\n"));
    const upstreamFetch = client();
    const controller = new AbortController();
    const response = await upstreamFetch(server.url, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(decoder.decode((await reader.read()).value)).toBe("data: 1");
    const reason = new DOMException("stop streaming", "AbortError");
    controller.abort(reason);
    expect(await reader.read().catch((thrown: unknown) => thrown)).toBe(reason);
    await until(() => server.connections[0]!.closed, "the server to see the connection closed");
  });

  test("abort after the body completed changes nothing (and the connection stays pooled)", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("done")));
    const upstreamFetch = client();
    const controller = new AbortController();
    expect(await (await upstreamFetch(server.url, { signal: controller.signal })).text()).toBe("done");
    controller.abort(new Error("late"));
    expect(await (await upstreamFetch(server.url)).text()).toBe("done");
    expect(server.connections).toHaveLength(1);
  });

  test("cancelling the body closes the connection (its unread bytes make it unreusable)", async () => {
    const server = rawServer((socket, request) => {
      if (request.connection === 1) socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n");
      else socket.write(okResponse("second"));
    });
    const upstreamFetch = client();
    const response = await upstreamFetch(server.url);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await until(() => server.connections[0]!.closed, "the server to see the connection closed");
    expect(await (await upstreamFetch(server.url)).text()).toBe("second");
    expect(server.connections).toHaveLength(2);
  });
});

describe("back-pressure", () => {
  test("a client that does not read stops the socket: the server's writes stall, then everything arrives once read", async () => {
    const total = 64 * 1024 * 1024;
    const piece = new Uint8Array(64 * 1024).fill(0x61);
    const progress = { written: 0, done: false };
    const server = rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${total}\r\n\r\n`);
      let offset = 0; // into `piece`, when the last write was partial
      const pump = () => {
        while (progress.written < total) {
          const bytes = piece.subarray(offset, Math.min(piece.length, offset + total - progress.written));
          const written = socket.write(bytes);
          if (written > 0) progress.written += written;
          offset = written < bytes.length ? offset + Math.max(written, 0) : 0;
          if (written < bytes.length) return; // kernel buffers full: wait for drain
        }
        progress.done = true;
      };
      socket.data.drain = pump;
      pump();
    });
    const upstreamFetch = client();
    const response = await upstreamFetch(server.url);
    // Not reading: wait until the server has made no progress for a while.
    let last = -1;
    let still = 0;
    const deadline = Date.now() + 3000;
    while (still < 5 && Date.now() < deadline) {
      await Bun.sleep(10);
      if (progress.written === last) still++;
      else {
        still = 0;
        last = progress.written;
      }
    }
    expect(progress.done).toBe(false);
    // Kernel socket buffers plus 16 queued chunks: a few MB, far from the 64 MB a non-pausing client would swallow.
    expect(progress.written).toBeLessThan(total / 2);

    // Reading resumes the socket: the rest arrives, in order and complete.
    let received = 0;
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
    }
    expect(received).toBe(total);
    expect(progress.done).toBe(true);
  });
});

describe("fallback", () => {
  function recordingFallback() {
    const calls: Array<{ input: unknown; init: RequestInit | undefined }> = [];
    const fallback = (async (input: unknown, init?: RequestInit) => {
      calls.push({ input, init });
      return new Response("from fallback");
    }) as unknown as typeof fetch;
    return { calls, fallback };
  }

  test("a Request object goes to the fallback", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("direct")));
    const { calls, fallback } = recordingFallback();
    const upstreamFetch = client({ fallback });
    const request = new Request(`${server.url}/x`, { method: "POST", body: "b" });
    expect(await (await upstreamFetch(request)).text()).toBe("from fallback");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.input).toBe(request);
    expect(server.connections).toHaveLength(0);
  });

  test("HTTPS_PROXY / http_proxy in the environment send every call to the fallback", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("direct")));
    for (const env of [{ HTTPS_PROXY: "http://proxy.internal:3128" }, { http_proxy: "http://proxy.internal:3128" }]) {
      const { calls, fallback } = recordingFallback();
      const upstreamFetch = client({ fallback, env });
      const init = { method: "POST", body: "{}", headers: { "x-a": "1" } };
      expect(await (await upstreamFetch(`${server.url}/v1/x`, init)).text()).toBe("from fallback");
      expect(calls).toEqual([{ input: `${server.url}/v1/x`, init }]);
    }
    expect(server.connections).toHaveLength(0);
    // An empty proxy variable is no proxy.
    const { calls, fallback } = recordingFallback();
    expect(await (await client({ fallback, env: { HTTPS_PROXY: "" } })(server.url)).text()).toBe("direct");
    expect(calls).toHaveLength(0);
  });

  test("streamed bodies, non-HTTP URLs and URLs with credentials go to the fallback too", async () => {
    const server = rawServer((socket) => void socket.write(okResponse("direct")));
    const { calls, fallback } = recordingFallback();
    const upstreamFetch = client({ fallback });
    await upstreamFetch(server.url, { method: "POST", body: new ReadableStream({ start: (c) => c.close() }) });
    await upstreamFetch(server.url, { method: "POST", body: new URLSearchParams({ a: "1" }) });
    await upstreamFetch("data:text/plain,hello");
    await upstreamFetch(`http://user:secret@127.0.0.1:${server.port}/`);
    await upstreamFetch("not a url");
    expect(calls).toHaveLength(5);
    expect(server.connections).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("TLS", () => {
  const openssl = Bun.which("openssl");
  let dir = "";
  let cert = "";
  let key = "";
  beforeAll(() => {
    if (!openssl) {
      console.warn("upstream-http TLS tests skipped: openssl is not installed");
      return;
    }
    dir = mkdtempSync(join(tmpdir(), "upstream-http-tls-"));
    const result = Bun.spawnSync([
      openssl,
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    if (result.exitCode !== 0) throw new Error(`openssl failed: ${result.stderr.toString()}`);
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    key = readFileSync(join(dir, "key.pem"), "utf8");
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function tlsServer(): { url: string; hits: () => number } {
    let hits = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert, key },
      fetch: async (request) => {
        hits++;
        return Response.json({ secure: true, body: await request.text() });
      },
    });
    cleanups.push(() => void server.stop(true));
    return { url: `https://localhost:${server.port}`, hits: () => hits };
  }

  test.skipIf(!openssl)("a self-signed certificate is refused by default, with a TLS error code; the handler never runs", async () => {
    const server = tlsServer();
    const upstreamFetch = client();
    const error = await upstreamFetch(`${server.url}/v1/x`, { method: "POST", body: "secret" }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    const code = (error as { code?: unknown }).code;
    expect(typeof code).toBe("string");
    expect((code as string).length).toBeGreaterThan(0);
    expect(["DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"]).toContain(code as string);
    expect(server.hits()).toBe(0);
  });

  test.skipIf(!openssl)("trusted through tls.ca, the same server answers, request after request", async () => {
    const server = tlsServer();
    const upstreamFetch = client({ tls: { ca: cert } });
    const first = await upstreamFetch(`${server.url}/v1/x`, { method: "POST", body: "hello" });
    expect(await first.json()).toEqual({ secure: true, body: "hello" });
    const second = await upstreamFetch(`${server.url}/v1/y`, { method: "POST", body: "again" });
    expect(await second.json()).toEqual({ secure: true, body: "again" });
    expect(server.hits()).toBe(2);
  });

  test.skipIf(!openssl)("rejectUnauthorized: false accepts the self-signed certificate", async () => {
    const server = tlsServer();
    const upstreamFetch = client({ tls: { rejectUnauthorized: false } });
    expect(await (await upstreamFetch(`${server.url}/`, { method: "POST", body: "x" })).json()).toEqual({ secure: true, body: "x" });
  });
});
