/**
 * A fake Google Vertex AI endpoint on loopback, checking what Vertex checks and answering in Vertex's shapes
 * (./replies.ts), with a fake Google token endpoint beside it (./google-oauth.ts, `POST /token`) and a metadata
 * server's token URL (`GET /computeMetadata/v1/instance/service-accounts/default/token`, `Metadata-Flavor: Google`):
 *
 * - URLs: `POST /{v1|v1beta1}/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`
 *   with `generateContent`, `streamGenerateContent` (`?alt=sse`) and `predict` (text embeddings, ./predict.ts) for
 *   `google` and `rawPredict`, `streamRawPredict` for `anthropic`; another project is Google's 403 PERMISSION_DENIED, another location or an unknown model its 404
 *   NOT_FOUND, any other path its 404.
 * - Credentials: `Authorization: Bearer` with a token the fake token endpoint issued (cloud-platform scope, not
 *   expired on the fake's clock) or one of the fixed tokens the test gave; else Google's 401 UNAUTHENTICATED.
 * - Claude's body: `anthropic_version` required, `model` refused (Vertex takes the model from the URL), `stream`
 *   as the method says.
 *
 * The answer is picked from the last user text (markers) unless a test passes its own `answer`: `[vertex:429]`
 * RESOURCE_EXHAUSTED, `[vertex:500]` INTERNAL, `[vertex:stream-error]` an in-band failure after some text,
 * `[vertex:reason]` reasoning first; tools offered (and no tool result yet) a call of the first tool; a max output of
 * 5 tokens or less a cut answer; else a short text.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeFrames } from "../fake-upstream/sse.ts";
import { FakeGoogleOAuth, type FakeServiceAccount } from "./google-oauth.ts";
import { predictReply } from "./predict.ts";
import { type Answer, claudeFrames, claudeMessage, geminiFrames, geminiResponse } from "./replies.ts";

type Json = Record<string, unknown>;

/** A request the endpoint accepted (past the URL, credential and body checks). */
export interface VertexRequest {
  publisher: "google" | "anthropic";
  method: "generateContent" | "streamGenerateContent" | "predict" | "rawPredict" | "streamRawPredict";
  version: string;
  project: string;
  location: string;
  model: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Json;
  stream: boolean;
  token: string;
}

/** A non-2xx answer. */
export interface VertexFailure {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeVertexOptions {
  project: string;
  location: string;
  /** Models served, per publisher. */
  models: { google?: string[]; anthropic?: string[] };
  /** Service accounts the token endpoint knows. */
  accounts?: FakeServiceAccount[];
  /** Access tokens accepted as they are (a `gcloud auth print-access-token` user). */
  staticTokens?: string[];
  /** The audience token assertions must carry (default: this fake's own `/token` URL). */
  tokenAudience?: string;
  /** Seconds an issued token lives (default 3599). */
  tokenLifetimeSeconds?: number;
  /** The fake's clock in ms (token expiry); default Date.now. */
  now?: () => number;
  /** Overrides the marker-picked answer. */
  answer?: (request: VertexRequest) => Answer | VertexFailure | undefined;
}

export interface FakeVertex {
  /** `http://127.0.0.1:PORT`, standing for `https://{location}-aiplatform.googleapis.com`. */
  endpoint: string;
  /** The fake token endpoint's URL. */
  tokenUrl: string;
  oauth: FakeGoogleOAuth;
  readonly requests: VertexRequest[];
  /** Token requests received (accepted or not). */
  readonly tokenRequests: URLSearchParams[];
  /** Every request line the fake saw, refused ones included. */
  readonly seen: string[];
  reset(): void;
  stop(): Promise<void>;
}

const google = (code: number, status: string, message: string): VertexFailure => ({ status: code, body: { error: { code, message, status } } });

const NOT_FOUND_PATH: VertexFailure = { status: 404, body: "<!DOCTYPE html>\n<html lang=en>\n<title>Error 404 (Not Found)!!1</title>\n<p>The requested URL was not found on this server.</p>" };
const UNAUTHENTICATED = google(
  401,
  "UNAUTHENTICATED",
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
);
export const RESOURCE_EXHAUSTED = google(429, "RESOURCE_EXHAUSTED", "Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.");
export const INTERNAL = google(500, "INTERNAL", "Internal error encountered.");

const anthropicInvalid = (message: string): VertexFailure => ({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message } } });

function send(res: ServerResponse, failure: VertexFailure): void {
  const text = typeof failure.body === "string" ? failure.body : JSON.stringify(failure.body);
  res.writeHead(failure.status, { "content-type": typeof failure.body === "string" ? "text/html; charset=UTF-8" : "application/json; charset=UTF-8", ...failure.headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The metadata server's token path (a VM's, Cloud Run's, GKE's), served here too. */
export const METADATA_PATH = "/computeMetadata/v1/instance/service-accounts/default/token";

const ROUTE = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(generateContent|streamGenerateContent|predict|rawPredict|streamRawPredict)$/;

/** The text of the conversation's last user turn (Gemini `contents` or Messages `messages`). */
export function lastUserText(request: VertexRequest): string {
  const turns = (request.publisher === "google" ? request.body.contents : request.body.messages) as Json[] | undefined;
  const last = [...(turns ?? [])].reverse().find((t) => t.role === "user");
  if (last === undefined) return "";
  if (request.publisher === "google") return ((last.parts as Json[] | undefined) ?? []).map((p) => (typeof p.text === "string" ? p.text : "")).join(" ");
  const content = last.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? (content as Json[]).map((c) => (typeof c.text === "string" ? c.text : "")).join(" ") : "";
}

/** Whether the conversation ends with a tool result (the model then answers in text). */
function endsWithToolResult(request: VertexRequest): boolean {
  if (request.publisher === "google") {
    const last = (request.body.contents as Json[] | undefined)?.at(-1);
    return ((last?.parts as Json[] | undefined) ?? []).some((p) => p.functionResponse !== undefined);
  }
  const last = (request.body.messages as Json[] | undefined)?.at(-1);
  return Array.isArray(last?.content) && (last.content as Json[]).some((c) => c.type === "tool_result");
}

function firstToolName(request: VertexRequest): string | undefined {
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as Json[]) : [];
  if (request.publisher === "anthropic") return tools[0]?.name as string | undefined;
  const declarations = tools.flatMap((t) => (Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Json[]) : []));
  return declarations[0]?.name as string | undefined;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The marker-picked answer (see the file comment). */
export function defaultAnswer(request: VertexRequest): Answer | VertexFailure {
  const text = lastUserText(request);
  const prompt = 12 + words(JSON.stringify(request.publisher === "google" ? request.body.contents : request.body.messages));
  if (text.includes("[vertex:429]")) return RESOURCE_EXHAUSTED;
  if (text.includes("[vertex:500]")) return INTERNAL;
  if (text.includes("[vertex:stream-error]")) return { text: "The capital of France", finish: "stop", failMidStream: true, usage: { prompt, completion: 4 } };
  const reasoning = text.includes("[vertex:reason]") ? "The user asks about Paris; a tool gives the weather." : undefined;
  const tool = firstToolName(request);
  if (tool !== undefined && !endsWithToolResult(request)) {
    return { reasoning, toolCalls: [{ id: "toolu_vrtx_01A9mQ2vXk7pL4rT8sW1yB3n", name: tool, arguments: { city: "Paris" } }], finish: "tool_calls", usage: { prompt, completion: 18 + (reasoning ? 12 : 0), reasoning: reasoning ? 12 : 0 } };
  }
  const config = request.body.generationConfig as Json | undefined;
  const max = (request.publisher === "google" ? config?.maxOutputTokens : request.body.max_tokens) as number | undefined;
  if (max !== undefined && max <= 5) return { text: "The capital of", finish: "length", usage: { prompt, completion: max } };
  return { reasoning, text: "The capital of France is Paris.", finish: "stop", usage: { prompt, completion: 7 + (reasoning ? 12 : 0), reasoning: reasoning ? 12 : 0 } };
}

export async function startFakeVertex(options: FakeVertexOptions): Promise<FakeVertex> {
  const now = options.now ?? Date.now;
  const requests: VertexRequest[] = [];
  const tokenRequests: URLSearchParams[] = [];
  const seen: string[] = [];
  const staticTokens = new Set(options.staticTokens ?? []);
  let oauth: FakeGoogleOAuth | undefined;
  let serial = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.local");
    const raw = await readBody(req);
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    if (url.pathname === METADATA_PATH && req.method === "GET") {
      const reply = oauth!.metadataToken(typeof req.headers["metadata-flavor"] === "string" ? req.headers["metadata-flavor"] : undefined);
      res.writeHead(reply.status, { "content-type": "application/json", "metadata-flavor": "Google" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      tokenRequests.push(new URLSearchParams(raw));
      const reply = await oauth!.token(req.headers["content-type"], raw);
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    const route = ROUTE.exec(url.pathname);
    if (req.method !== "POST" || route === null) return send(res, NOT_FOUND_PATH);
    const [, version, project, location, publisher, rawModel, method] = route as unknown as [string, string, string, string, "google" | "anthropic", string, VertexRequest["method"]];
    const model = decodeURIComponent(rawModel);
    // Credentials come first: Google answers 401 before it looks at the resource.
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
    if (token === undefined || !(staticTokens.has(token) || oauth!.accepts(token))) return send(res, UNAUTHENTICATED);
    const resource = `projects/${project}/locations/${location}/publishers/${publisher}/models/${model}`;
    if (project !== options.project) {
      return send(res, google(403, "PERMISSION_DENIED", `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).`));
    }
    const streaming = method === "streamGenerateContent" || method === "streamRawPredict";
    const methodFits = publisher === "google" ? method.endsWith("GenerateContent") || method === "generateContent" || method === "predict" : method.endsWith("awPredict");
    if (!methodFits) return send(res, google(400, "INVALID_ARGUMENT", `Method ${method} is not supported for publisher ${publisher}.`));
    if (location !== options.location || !(options.models[publisher] ?? []).includes(model)) {
      return send(res, google(404, "NOT_FOUND", `Publisher Model \`${resource}\` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions`));
    }
    if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
      return send(res, google(400, "INVALID_ARGUMENT", "This fake serves streamGenerateContent as Server-Sent Events only (?alt=sse)."));
    }
    let body: Json;
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      return send(res, google(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
    }
    if (publisher === "anthropic") {
      if (body.model !== undefined) return send(res, anthropicInvalid("model: Extra inputs are not permitted"));
      if (typeof body.anthropic_version !== "string") return send(res, anthropicInvalid("anthropic_version: Field required"));
      if ((body.stream === true) !== streaming) return send(res, anthropicInvalid(`stream: ${method} takes stream ${streaming}`));
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    const request: VertexRequest = { publisher, method, version, project, location, model, path: url.pathname, query: url.search.slice(1), headers, body, stream: streaming, token };
    requests.push(request);
    if (method === "predict") {
      const reply = predictReply(model, body);
      if ("status" in reply) return send(res, reply as VertexFailure);
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      res.end(JSON.stringify(reply));
      return;
    }
    const answer = options.answer?.(request) ?? defaultAnswer(request);
    if ("status" in answer) return send(res, answer);
    serial += 1;
    const who = publisher === "google" ? { id: `vtx${String(serial).padStart(4, "0")}Xk3mZ9aTLqG2vQ8Pj`, model } : { id: `msg_vrtx_01${String(serial).padStart(4, "0")}Q7xKpZ3nB8wRt4LmYd`, model };
    if (!streaming) {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      res.end(JSON.stringify(publisher === "google" ? geminiResponse(answer, who) : claudeMessage(answer, who)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const frames = publisher === "google" ? encodeFrames(geminiFrames(answer, who), "crlf") : encodeFrames(claudeFrames(answer, who), "named");
    for (const chunk of frames) res.write(chunk);
    res.end();
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenUrl = `${endpoint}/token`;
  oauth = new FakeGoogleOAuth([...(options.accounts ?? [])], options.tokenAudience ?? tokenUrl, now, options.tokenLifetimeSeconds);
  return {
    endpoint,
    tokenUrl,
    oauth,
    requests,
    tokenRequests,
    seen,
    reset() {
      requests.length = 0;
      tokenRequests.length = 0;
      seen.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
