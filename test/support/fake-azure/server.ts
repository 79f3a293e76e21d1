/**
 * A fake Azure OpenAI resource on loopback, checking what Azure checks and answering in Azure's shapes (./replies.ts):
 *
 * - URLs: the v1 API (`POST /openai/v1/chat/completions`, `/openai/v1/responses`, the deployment as `model`) and the
 *   deployments style (`POST /openai/deployments/{deployment}/chat/completions?api-version=…`,
 *   `POST /openai/responses?api-version=…`), the `api-version` required there and one of the versions it knows;
 *   an unknown deployment is Azure's 404 `DeploymentNotFound`, any other path its 404 "Resource not found".
 * - Credentials: the `api-key` header, or `Authorization: Bearer` with a token the fake Entra endpoint issued for
 *   Azure OpenAI's audience and that has not expired on the fake's clock (./entra.ts); else Azure's 401.
 * - Chat completions' schema: an unknown field is Azure's 400 "Unrecognized request argument supplied", an unknown
 *   field of a message its 400 "Additional properties are not allowed".
 *
 * The answer is picked from the last user text (markers) unless a test passes its own `answer`:
 * `[azure:prompt-filter]` the content filter's 400, `[azure:output-filter]` an answer cut by the filter,
 * `[azure:429]` a rate limit with `retry-after` and `retry-after-ms`, `[azure:500]` a server error,
 * `[azure:stream-error]` an in-band failure after some text, `[azure:reason]` reasoning first; tools offered (and no
 * tool result yet) a call of the first tool; a `max_tokens` of 5 or less a cut answer; else a short text.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeFrames } from "../fake-upstream/sse.ts";
import { FakeEntra, type EntraApp } from "./entra.ts";
import { CHAT_PROMPT_REFUSAL, RESPONSES_PROMPT_REFUSAL } from "./filters.ts";
import { type Answer, chatCompletion, chatFrames, responsesFrames, responsesResult } from "./replies.ts";

type Json = Record<string, unknown>;

/** A request the resource accepted (past the URL, credential and schema checks). */
export interface AzureRequest {
  api: "chat" | "responses";
  style: "v1" | "deployments";
  deployment: string;
  /** `api-key` or `entra`. */
  auth: "api-key" | "entra";
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Json;
  stream: boolean;
}

/** A non-2xx answer. */
export interface AzureFailure {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeAzureOptions {
  /** The resource key the `api-key` header must carry (none: keys are refused). */
  apiKey?: string;
  /** The app registration the token endpoint knows (none: no Entra). */
  entra?: Omit<EntraApp, "lifetimeSeconds"> & { lifetimeSeconds?: number };
  /** Deployment name → the model it runs. */
  deployments: Record<string, string>;
  /** `api-version` values the deployments style accepts. */
  apiVersions?: string[];
  /** The fake's clock in ms (token expiry); default Date.now. */
  now?: () => number;
  /** Overrides the marker-picked answer. */
  answer?: (request: AzureRequest) => Answer | AzureFailure | undefined;
}

export interface FakeAzure {
  /** `http://127.0.0.1:PORT`, the resource endpoint (`https://{resource}.openai.azure.com`). */
  endpoint: string;
  /** The token URL of the configured tenant. */
  tokenUrl: string;
  readonly requests: AzureRequest[];
  /** Token requests received (accepted or not). */
  readonly tokenRequests: Array<{ tenant: string; form: URLSearchParams }>;
  /** Every request line the fake saw (`POST /openai/v1/chat/completions?…`), refused ones included. */
  readonly seen: string[];
  entra: FakeEntra | undefined;
  reset(): void;
  stop(): Promise<void>;
}

export const API_VERSIONS = ["2024-10-21", "2025-04-01-preview"];

const CHAT_FIELDS = new Set([
  "model", "messages", "stream", "stream_options", "temperature", "top_p", "n", "stop", "max_tokens", "max_completion_tokens",
  "presence_penalty", "frequency_penalty", "logit_bias", "user", "seed", "logprobs", "top_logprobs", "response_format", "tools",
  "tool_choice", "parallel_tool_calls", "reasoning_effort", "verbosity", "store", "metadata", "modalities", "audio", "prediction",
  "prompt_cache_key", "safety_identifier", "service_tier", "data_sources", "user_security_context",
]);
const MESSAGE_FIELDS = new Set(["role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio", "function_call"]);

const NOT_FOUND: AzureFailure = { status: 404, body: { error: { code: "404", message: "Resource not found" } } };
const UNAUTHORIZED: AzureFailure = {
  status: 401,
  body: { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource." } },
};
const BAD_TOKEN: AzureFailure = {
  status: 401,
  body: { error: { code: "401", message: "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired." } },
};
export const RATE_LIMITED: AzureFailure = {
  status: 429,
  headers: { "retry-after": "2", "retry-after-ms": "2000", "x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "0" },
  body: {
    error: {
      code: "429",
      message:
        "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.",
    },
  },
};
export const SERVER_ERROR: AzureFailure = {
  status: 500,
  body: { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } },
};

function send(res: ServerResponse, failure: AzureFailure): void {
  res.writeHead(failure.status, { "content-type": "application/json", "apim-request-id": crypto.randomUUID(), ...failure.headers });
  res.end(JSON.stringify(failure.body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The route of a path: which API, which URL style, and the deployment named in the path (deployments style). */
function routeOf(path: string): { api: "chat" | "responses"; style: "v1" | "deployments"; deployment?: string } | undefined {
  if (path === "/openai/v1/chat/completions") return { api: "chat", style: "v1" };
  if (path === "/openai/v1/responses") return { api: "responses", style: "v1" };
  if (path === "/openai/responses") return { api: "responses", style: "deployments" };
  const match = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
  return match ? { api: "chat", style: "deployments", deployment: decodeURIComponent(match[1]!) } : undefined;
}

/** Chat completions' schema check: Azure's own wording for an unknown field. */
function chatSchemaError(body: Json): AzureFailure | undefined {
  const unknown = Object.keys(body).find((key) => !CHAT_FIELDS.has(key));
  if (unknown !== undefined) {
    return { status: 400, body: { error: { message: `Unrecognized request argument supplied: ${unknown}`, type: "invalid_request_error", param: null, code: null } } };
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  for (const [index, message] of messages.entries()) {
    const extra = Object.keys(message).find((key) => !MESSAGE_FIELDS.has(key));
    if (extra !== undefined) {
      return { status: 400, body: { error: { message: `Additional properties are not allowed ('${extra}' was unexpected) - 'messages.${index}'`, type: "invalid_request_error", param: null, code: null } } };
    }
  }
  return undefined;
}

/** The text of the conversation's last user turn. */
export function lastUserText(request: AzureRequest): string {
  const turns = (request.api === "chat" ? request.body.messages : request.body.input) as unknown;
  if (typeof turns === "string") return turns;
  const list = Array.isArray(turns) ? (turns as Json[]) : [];
  const last = [...list].reverse().find((t) => t.role === "user");
  const content = last?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? (content as Json[]).map((c) => (typeof c.text === "string" ? c.text : "")).join(" ") : "";
}

/** Whether the conversation ends with a tool result (the model then answers in text). */
function endsWithToolResult(request: AzureRequest): boolean {
  const turns = (request.api === "chat" ? request.body.messages : request.body.input) as unknown;
  const last = Array.isArray(turns) ? (turns.at(-1) as Json | undefined) : undefined;
  return last?.role === "tool" || last?.type === "function_call_output";
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The marker-picked answer (see the file comment). */
export function defaultAnswer(request: AzureRequest): Answer | AzureFailure {
  const text = lastUserText(request);
  const prompt = 12 + words(JSON.stringify(request.api === "chat" ? request.body.messages : request.body.input));
  if (text.includes("[azure:prompt-filter]")) return { status: 400, body: request.api === "chat" ? CHAT_PROMPT_REFUSAL : RESPONSES_PROMPT_REFUSAL };
  if (text.includes("[azure:429]")) return RATE_LIMITED;
  if (text.includes("[azure:500]")) return SERVER_ERROR;
  if (text.includes("[azure:output-filter]")) return { text: "The capital of France is", finish: "content_filter", usage: { prompt, completion: 5 } };
  if (text.includes("[azure:stream-error]")) return { text: "The capital of France", finish: "stop", failMidStream: true, usage: { prompt, completion: 4 } };
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as Json[]) : [];
  const reasoning = text.includes("[azure:reason]") ? "The user asks about Paris; a tool gives the weather." : undefined;
  if (tools.length > 0 && !endsWithToolResult(request)) {
    const first = tools[0]!;
    const name = (request.api === "chat" ? (first.function as Json | undefined)?.name : first.name) as string;
    return { reasoning, toolCalls: [{ id: "call_Az9mQ2vXk7pL4rT8sW1yB3nD", name, arguments: '{"city":"Paris"}' }], finish: "tool_calls", usage: { prompt, completion: 18, reasoning: reasoning ? 12 : 0 } };
  }
  const max = (request.body.max_completion_tokens ?? request.body.max_tokens ?? request.body.max_output_tokens) as number | undefined;
  if (max !== undefined && max <= 5) return { text: "The capital of", finish: "length", usage: { prompt, completion: max } };
  return { reasoning, text: "The capital of France is Paris.", finish: "stop", usage: { prompt, completion: 7 + (reasoning ? 12 : 0), cached: 0, reasoning: reasoning ? 12 : 0 } };
}

export async function startFakeAzure(options: FakeAzureOptions): Promise<FakeAzure> {
  const now = options.now ?? Date.now;
  const versions = new Set(options.apiVersions ?? API_VERSIONS);
  const entra = options.entra ? new FakeEntra({ lifetimeSeconds: 3599, ...options.entra }, now) : undefined;
  const requests: AzureRequest[] = [];
  const tokenRequests: FakeAzure["tokenRequests"] = [];
  const seen: string[] = [];
  let serial = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.local");
    const raw = await readBody(req);
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (tokenPath && req.method === "POST" && entra) {
      tokenRequests.push({ tenant: decodeURIComponent(tokenPath[1]!), form: new URLSearchParams(raw) });
      const reply = entra.token(decodeURIComponent(tokenPath[1]!), req.headers["content-type"], raw);
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(reply.body));
      return;
    }
    const route = routeOf(url.pathname);
    if (req.method !== "POST" || route === undefined) return send(res, NOT_FOUND);
    // The api-version: required and known in the deployments style; the v1 API takes none (or its own aliases).
    const version = url.searchParams.get("api-version");
    if (route.style === "deployments" && version === null) return send(res, NOT_FOUND);
    if (route.style === "deployments" ? !versions.has(version!) : version !== null && !["preview", "latest", "v1"].includes(version)) {
      return send(res, { status: 400, body: { error: { code: "BadRequest", message: "API version not supported" } } });
    }
    // Credentials.
    const key = req.headers["api-key"];
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
    let auth: AzureRequest["auth"];
    if (typeof key === "string") {
      if (options.apiKey === undefined || key !== options.apiKey) return send(res, UNAUTHORIZED);
      auth = "api-key";
    } else if (bearer !== undefined) {
      if (!entra?.accepts(bearer)) return send(res, BAD_TOKEN);
      auth = "entra";
    } else return send(res, UNAUTHORIZED);
    let body: Json;
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      return send(res, { status: 400, body: { error: { code: "BadRequest", message: "Failed to parse the request body as JSON." } } });
    }
    const deployment = route.deployment ?? (typeof body.model === "string" ? body.model : "");
    const model = options.deployments[deployment];
    if (model === undefined) {
      return send(res, { status: 404, body: { error: { code: "DeploymentNotFound", message: "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again." } } });
    }
    if (route.api === "chat") {
      const schema = chatSchemaError(body);
      if (schema) return send(res, schema);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    const request: AzureRequest = { ...route, deployment, auth, path: url.pathname, query: url.search.slice(1), headers, body, stream: body.stream === true };
    requests.push(request);
    const answer = options.answer?.(request) ?? defaultAnswer(request);
    if ("status" in answer) return send(res, answer);
    const who = { id: `chatcmpl-AzF${String(++serial).padStart(4, "0")}kQ7x`, model, created: 1767225600 };
    const common = { "apim-request-id": crypto.randomUUID(), "x-ms-region": "East US 2", "x-ratelimit-remaining-requests": "99", "x-ratelimit-remaining-tokens": "99000" };
    if (!request.stream) {
      res.writeHead(200, { "content-type": "application/json", ...common });
      res.end(JSON.stringify(route.api === "chat" ? chatCompletion(answer, who) : responsesResult(answer, { ...who, id: who.id.replace("chatcmpl-", "") })));
      return;
    }
    const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
    const frames = route.api === "chat" ? chatFrames(answer, who, includeUsage) : responsesFrames(answer, { ...who, id: who.id.replace("chatcmpl-", "") });
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...common });
    for (const chunk of encodeFrames(frames, route.api === "chat" ? "data" : "named")) res.write(chunk);
    res.end();
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    tokenUrl: `${endpoint}/${encodeURIComponent(options.entra?.tenantId ?? "tenant")}/oauth2/v2.0/token`,
    requests,
    tokenRequests,
    seen,
    entra,
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
