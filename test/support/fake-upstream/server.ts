/**
 * ONE loopback fake upstream that speaks the upstream wire formats the adapters call:
 *
 * - `POST /v1/chat/completions`                                   (`openai`)
 * - `POST /v1/responses`                                          (`openai-responses`)
 * - `POST /v1/messages`                                           (`anthropic`)
 * - `POST /v1beta/models/{m}:generateContent` and `:streamGenerateContent?alt=sse` (`gemini`)
 * - `POST /model/{modelId}/converse` and `/converse-stream` (`bedrock`: credentials checked as Bedrock checks them,
 *   a SigV4 signature recomputed independently or an API key, test/support/fake-bedrock/sigv4.ts; a refusal is AWS's 403)
 * - `POST /openai/v1/chat/completions` and `POST /openai/responses?api-version=…` (`azure`, both APIs)
 * - `POST /v1/projects/{p}/locations/{l}/publishers/{google|anthropic}/models/{m}:{method}` (`vertex`)
 *
 * It records every request (method, path, query, headers, parsed body) and answers each one with the next scripted
 * reply from a FIFO queue: a JSON body (any status), an SSE frame list (optionally paused, cut, or reset mid-stream),
 * or raw text. Nothing is answered by default: a request without a scripted reply gets a 500 whose message says so,
 * and a reply scripted for another wire (`expectPath`) gets a 418, so a test can never pass on the wrong upstream.
 * A suite whose calls come in an order it does not script (the adapter conformance kit) passes `respond` instead:
 * it picks the reply from the request when the queue is empty.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { awsErrorReply } from "../fake-bedrock/errors.ts";
import { DEFAULT_IDENTITIES } from "../fake-bedrock/identities.ts";
import { checkAuth, isFailure } from "../fake-bedrock/sigv4.ts";
import { encodeFrames, type SseFrame, type SseStyle } from "./sse.ts";

/** A request the fake received. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent`. */
  path: string;
  /** Query string without `?` (`alt=sse`), or "". */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when the body was not JSON). */
  body: Record<string, unknown>;
  raw: string;
}

/** A JSON reply; `status` defaults to 200. */
export interface JsonReply {
  kind: "json";
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  expectPath?: RegExp;
}

/** An SSE reply. */
export interface SseReply {
  kind: "sse";
  frames: SseFrame[];
  style: SseStyle;
  status?: number;
  /** Pause (ms) before the frame at `index` (headers and earlier frames are already sent). */
  pause?: { index: number; ms: number };
  /** `close` (default) ends the body cleanly after the frames; `reset` errors the body, as a dropped connection. */
  end?: "close" | "reset";
  expectPath?: RegExp;
}

/** A raw text reply (e.g. an HTML error page from a proxy). */
export interface TextReply {
  kind: "text";
  status: number;
  body: string;
  contentType?: string;
  expectPath?: RegExp;
}

export type Reply = JsonReply | SseReply | TextReply;

export interface FakeUpstream {
  /** `http://127.0.0.1:PORT` (no version segment: each adapter's base URL adds `/v1` or `/v1beta`). */
  origin: string;
  readonly requests: RecordedRequest[];
  /** Queues replies, answered in order by the next requests. */
  enqueue(...replies: Reply[]): void;
  /** The most recent request; throws when none arrived (so a test never asserts on nothing). */
  last(): RecordedRequest;
  /** Replies scripted but not consumed. */
  pending(): number;
  /** Forgets requests and scripted replies (call in `beforeEach`). */
  reset(): void;
  stop(): Promise<void>;
}

const BEDROCK_ROUTE = /^\/model\/[^/]+\/(converse|converse-stream)$/;

const ROUTES: RegExp[] = [
  /^\/v1\/chat\/completions$/,
  /^\/v1\/responses$/,
  /^\/v1\/messages$/,
  /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/,
  BEDROCK_ROUTE,
  // Azure OpenAI
  /^\/openai\/v1\/chat\/completions$/,
  /^\/openai\/responses$/,
  // Google Vertex AI
  /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/(google|anthropic)\/models\/[^/:]+:(generateContent|streamGenerateContent|rawPredict|streamRawPredict)$/,
];

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Writes the frames (pausing where scripted), then ends the body, or destroys the socket mid-body for `reset`
 * (what a dropped upstream connection looks like to the adapter: the read fails after partial data).
 */
async function sendSse(res: ServerResponse, reply: SseReply): Promise<void> {
  const contentType = reply.style === "eventstream" ? "application/vnd.amazon.eventstream" : "text/event-stream";
  res.writeHead(reply.status ?? 200, { "content-type": contentType, "cache-control": "no-cache" });
  res.flushHeaders();
  const chunks = encodeFrames(reply.frames, reply.style);
  for (let i = 0; i < chunks.length; i++) {
    if (reply.pause?.index === i) await Bun.sleep(reply.pause.ms);
    res.write(chunks[i]);
  }
  if (reply.end === "reset") {
    // Let the frames reach the client first, then drop the connection.
    await Bun.sleep(15);
    res.socket?.destroy();
  } else res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Options of `startFakeUpstream`. */
export interface FakeUpstreamOptions {
  /** The reply to a request nothing was queued for (default: none, a 500 saying so). */
  respond?: (request: RecordedRequest) => Reply;
}

/** Starts the fake on an ephemeral loopback port. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.socket?.destroy());
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.local");
    const bytes = await readBody(req);
    const raw = bytes.toString("utf8");
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded raw only
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
    const method = req.method ?? "";
    const recorded: RecordedRequest = { method, path: url.pathname, query: url.search.replace(/^\?/, ""), headers, body, raw };
    requests.push(recorded);
    if (method !== "POST" || !ROUTES.some((r) => r.test(url.pathname))) {
      return sendJson(res, 404, { error: { message: `fake upstream: no route ${method} ${url.pathname}` } });
    }
    if (BEDROCK_ROUTE.test(url.pathname)) {
      const auth = await checkAuth({ method, path: url.pathname, query: url.search.replace(/^\?/, ""), headers, body: new Uint8Array(bytes) }, DEFAULT_IDENTITIES);
      if (isFailure(auth)) {
        const refusal = awsErrorReply(auth.type, auth.message, auth.status);
        res.writeHead(refusal.status, refusal.headers);
        res.end(refusal.body);
        return;
      }
    }
    const reply = queue.shift() ?? options.respond?.(recorded);
    if (reply === undefined) return sendJson(res, 500, { error: { message: `fake upstream: no scripted reply for ${method} ${url.pathname}` } });
    if (reply.expectPath && !reply.expectPath.test(url.pathname + url.search)) {
      return sendJson(res, 418, { error: { message: `fake upstream: reply scripted for ${reply.expectPath} but ${url.pathname}${url.search} was called` } });
    }
    switch (reply.kind) {
      case "json":
        return sendJson(res, reply.status ?? 200, reply.body, reply.headers);
      case "text":
        res.writeHead(reply.status, { "content-type": reply.contentType ?? "text/plain" });
        res.end(reply.body);
        return;
      case "sse":
        return sendSse(res, reply);
    }
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    last() {
      const last = requests.at(-1);
      if (!last) throw new Error("fake upstream: no request was received");
      return last;
    },
    pending: () => queue.length,
    reset() {
      requests.length = 0;
      queue.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
