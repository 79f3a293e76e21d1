/**
 * A loopback fake of Amazon Bedrock's runtime (`bedrock-runtime.{region}.amazonaws.com`): `POST
 * /model/{modelId}/converse`, `/model/{modelId}/converse-stream` and `/model/{modelId}/invoke` (embedding models), checking what Bedrock checks (the SigV4 signature
 * recomputed independently, or a Bedrock API key; ./sigv4.ts) and answering in Bedrock's wire shapes: the Converse
 * JSON, the ConverseStream binary event stream (./event-stream.ts) with exceptions in the middle, and AWS's error
 * replies (./errors.ts). It records every request and answers each from a FIFO of scripted replies, or from
 * `respond` when none is queued; with neither it answers a 500 saying so.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { awsErrorReply, type AwsErrorReply } from "./errors.ts";
import { encodeBedrockFrames, type BedrockFrame } from "./event-stream.ts";
import { DEFAULT_IDENTITIES, type Identities } from "./identities.ts";
import { checkAuth, isFailure, type Authenticated } from "./sigv4.ts";

/** A request the fake received and accepted or refused. */
export interface BedrockRequest {
  method: string;
  /** As sent (percent-encoded), e.g. `/model/us.anthropic.claude-sonnet-4-5-v1%3A0/converse`. */
  path: string;
  /** The decoded model id of the path; undefined off the two routes. */
  modelId: string | undefined;
  operation: "converse" | "converse-stream" | "invoke" | undefined;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  raw: string;
  /** How it authenticated; undefined when refused. */
  auth: Authenticated | undefined;
}

export type BedrockReply =
  | { kind: "converse"; body: unknown }
  /** An InvokeModel reply (the embedding models' API), with Bedrock's headers such as the input token count. */
  | { kind: "invoke"; body: unknown; headers?: Record<string, string> }
  | { kind: "stream"; frames: BedrockFrame[]; pause?: { index: number; ms: number }; end?: "close" | "reset" }
  | { kind: "error"; type: string; message: string; status?: number };

export interface FakeBedrock {
  /** `http://127.0.0.1:PORT`, the base URL a client is given (the endpoint). */
  origin: string;
  readonly requests: BedrockRequest[];
  enqueue(...replies: BedrockReply[]): void;
  last(): BedrockRequest;
  reset(): void;
  stop(): Promise<void>;
}

export interface FakeBedrockOptions {
  identities?: Identities;
  respond?: (request: BedrockRequest) => BedrockReply;
}

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/;

/** The model id and operation of a Bedrock runtime path; undefined for any other path. */
export function bedrockRoute(path: string): { modelId: string; operation: "converse" | "converse-stream" | "invoke" } | undefined {
  const match = ROUTE.exec(path);
  if (!match) return undefined;
  return { modelId: decodeURIComponent(match[1]!), operation: match[2] as "converse" | "converse-stream" | "invoke" };
}

function sendAws(res: ServerResponse, reply: AwsErrorReply): void {
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
}

/** Writes the frames as one binary message each (pausing where scripted), then ends or drops the connection. */
export async function sendEventStream(res: ServerResponse, chunks: readonly Uint8Array[], pause?: { index: number; ms: number }, end: "close" | "reset" = "close"): Promise<void> {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": crypto.randomUUID() });
  res.flushHeaders();
  for (let i = 0; i < chunks.length; i++) {
    if (pause?.index === i) await Bun.sleep(pause.ms);
    res.write(chunks[i]);
  }
  if (end === "reset") {
    await Bun.sleep(15);
    res.socket?.destroy();
  } else res.end();
}

async function readBytes(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
  return headers;
}

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const identities = options.identities ?? DEFAULT_IDENTITIES;
  const requests: BedrockRequest[] = [];
  const queue: BedrockReply[] = [];
  const server = createServer((req, res) => void handle(req, res).catch(() => res.socket?.destroy()));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.local");
    const bytes = await readBytes(req);
    const raw = new TextDecoder().decode(bytes);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded raw only
    }
    const headers = headersOf(req);
    const route = bedrockRoute(url.pathname);
    const recorded: BedrockRequest = { method: req.method ?? "", path: url.pathname, modelId: route?.modelId, operation: route?.operation, headers, body, raw, auth: undefined };
    requests.push(recorded);
    const auth = await checkAuth({ method: recorded.method, path: url.pathname, query: url.search.replace(/^\?/, ""), headers, body: bytes }, identities);
    if (isFailure(auth)) return sendAws(res, awsErrorReply(auth.type, auth.message, auth.status));
    recorded.auth = auth;
    if (recorded.method !== "POST" || !route) return sendAws(res, awsErrorReply("UnknownOperationException", `No operation ${recorded.method} ${url.pathname}`, 404));
    const reply = queue.shift() ?? options.respond?.(recorded);
    if (reply === undefined) return sendAws(res, awsErrorReply("InternalServerException", "fake bedrock: no scripted reply", 500));
    if (reply.kind === "error") return sendAws(res, awsErrorReply(reply.type, reply.message, reply.status));
    if (reply.kind === "invoke") {
      if (route.operation !== "invoke") return sendAws(res, awsErrorReply("ValidationException", "fake bedrock: an InvokeModel reply was scripted for Converse", 418));
      res.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": crypto.randomUUID(), ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    }
    if (reply.kind === "converse") {
      if (route.operation !== "converse") return sendAws(res, awsErrorReply("ValidationException", "fake bedrock: a Converse reply was scripted for ConverseStream", 418));
      res.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": crypto.randomUUID() });
      res.end(JSON.stringify(reply.body));
      return;
    }
    if (route.operation !== "converse-stream") return sendAws(res, awsErrorReply("ValidationException", "fake bedrock: a stream was scripted for Converse", 418));
    return sendEventStream(res, encodeBedrockFrames(reply.frames), reply.pause, reply.end);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    last() {
      const last = requests.at(-1);
      if (!last) throw new Error("fake bedrock: no request was received");
      return last;
    },
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
