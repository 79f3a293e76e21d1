/**
 * Wire fixtures (`test/fixtures/wire/<adapter>/<name>.json`) → scripted replies for the fake upstream. Each fixture
 * holds one scenario as the real API sends it, both ways: `json` (the non-streamed body) and `sse` (the streamed
 * frames), plus `expect`, what a client must see in canonical terms (text, finish, tool calls, usage). Error
 * fixtures hold `http` (a non-2xx reply) and `sse` (a stream that fails in-band after partial output).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonReply, Reply, SseReply } from "./server.ts";
import type { SseFrame, SseStyle } from "./sse.ts";

export type AdapterId =
  | "openai"
  | "openai-responses"
  | "anthropic"
  | "gemini"
  // Cloud adapters: Amazon Bedrock; Azure OpenAI's chat completions on the v1 API, and its Responses API in the
  // deployments style (api-version).
  | "bedrock"
  | "azure"
  | "azure-responses"
  // Google Vertex AI: Gemini (publishers/google) and Claude (publishers/anthropic).
  | "vertex"
  | "vertex-anthropic";
export const ADAPTERS: readonly AdapterId[] = [
  "openai",
  "openai-responses",
  "anthropic",
  "gemini",
  // Cloud adapters.
  "bedrock",
  "azure",
  "azure-responses",
  "vertex",
  "vertex-anthropic",
];

/** The adapter whose wire (and translation) an adapter shares: Azure's are OpenAI's, Vertex's Gemini's and Anthropic's. */
export function wireFamily(adapter: AdapterId): AdapterId {
  if (adapter === "azure") return "openai";
  if (adapter === "azure-responses") return "openai-responses";
  if (adapter === "vertex") return "gemini";
  if (adapter === "vertex-anthropic") return "anthropic";
  return adapter;
}

/** Where the conformance fake serves Vertex's models (project and location of the conformance providers). */
export const VERTEX_PROJECT = "conf-project";
export const VERTEX_LOCATION = "us-east5";
const VERTEX_MODELS = `^/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers`;

/** `web-search` exists only for the adapters whose upstream has a search of its own (anthropic, openai-responses). */
export type FixtureName = "text" | "tool-call" | "parallel-tool-calls" | "thinking" | "max-tokens" | "refusal" | "error" | "web-search";

/** Canonical finish a client must see: stop, length, tool_calls, refusal (content filter). */
export type ExpectedFinish = "stop" | "length" | "tool_calls" | "refusal";

export interface ExpectedUsage {
  /** Prompt tokens including cache reads and writes. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Output tokens including reasoning tokens. */
  output: number;
  reasoning: number;
}

export interface FixtureExpect {
  text?: string;
  partialText?: string;
  finish?: ExpectedFinish;
  reasoning?: string;
  /** The opaque reasoning state the upstream needs back on the next turn. */
  carry?: { signature?: string; encrypted?: string; id?: string };
  toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  usage?: ExpectedUsage;
  /** Searches the upstream ran itself (native web search), in order: the call id, its query and the result URLs. */
  webSearches?: Array<{ id: string; query: string; urls: string[] }>;
  /** URL citations on the answer text. */
  citations?: Array<{ url: string; title: string }>;
  /** Server-tool counters the upstream's usage reported (`web_search_requests`). */
  serverTools?: Record<string, number>;
  /** Messages `stop_details` the upstream reported (Anthropic refusals). */
  stopDetails?: Record<string, unknown>;
  httpStatus?: number;
  httpErrorType?: string;
  streamErrorType?: string;
  streamStatus?: number;
}

export interface Fixture {
  description: string;
  json?: unknown;
  sse: SseFrame[];
  http?: { status: number; headers?: Record<string, string>; body: unknown };
  expect: FixtureExpect;
}

/** How each upstream frames SSE, which path it is called on, and the upstream model the gateway config names. */
export const WIRE: Record<AdapterId, { style: SseStyle; path: (stream: boolean) => RegExp; upstreamModel: string }> = {
  openai: { style: "data", path: () => /^\/v1\/chat\/completions$/, upstreamModel: "gpt-4.1" },
  "openai-responses": { style: "named", path: () => /^\/v1\/responses$/, upstreamModel: "gpt-5" },
  anthropic: { style: "named", path: () => /^\/v1\/messages$/, upstreamModel: "claude-sonnet-4-5" },
  gemini: {
    style: "crlf",
    path: (stream) => (stream ? /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/ : /^\/v1beta\/models\/gemini-2\.5-flash:generateContent$/),
    upstreamModel: "gemini-2.5-flash",
  },
  // Amazon Bedrock: the model id (a cross-region inference profile) URL-encoded in the path, the stream binary.
  bedrock: {
    style: "eventstream",
    path: (stream) => (stream ? /^\/model\/us\.anthropic\.claude-sonnet-4-5-20250929-v1%3A0\/converse-stream$/ : /^\/model\/us\.anthropic\.claude-sonnet-4-5-20250929-v1%3A0\/converse$/),
    upstreamModel: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  },
  // Azure OpenAI: the deployment is the upstream model.
  azure: { style: "data", path: () => /^\/openai\/v1\/chat\/completions$/, upstreamModel: "gpt-4o-prod" },
  "azure-responses": { style: "named", path: () => /^\/openai\/responses\?api-version=2025-04-01-preview$/, upstreamModel: "gpt-5-prod" },
  // Google Vertex AI: the project, location and publisher in the path; Claude's version after an `@`.
  vertex: {
    style: "crlf",
    path: (stream) => new RegExp(`${VERTEX_MODELS}/google/models/gemini-2\\.5-flash:${stream ? "streamGenerateContent\\?alt=sse" : "generateContent"}$`),
    upstreamModel: "gemini-2.5-flash",
  },
  "vertex-anthropic": {
    style: "named",
    path: (stream) => new RegExp(`${VERTEX_MODELS}/anthropic/models/claude-sonnet-4-5@20250929:${stream ? "streamRawPredict" : "rawPredict"}$`),
    upstreamModel: "claude-sonnet-4-5@20250929",
  },
};

const ROOT = join(import.meta.dir, "../../fixtures/wire");
const cache = new Map<string, Fixture>();

/** Reads (once) and returns a fixture; a missing file is a test bug and throws. */
export function fixture(adapter: AdapterId, name: FixtureName): Fixture {
  const key = `${adapter}/${name}`;
  let value = cache.get(key);
  if (!value) {
    value = JSON.parse(readFileSync(join(ROOT, `${key}.json`), "utf8")) as Fixture;
    cache.set(key, value);
  }
  // Deep copy: a test that mutates a reply must not change the next test's.
  return structuredClone(value);
}

/** The fixture's success reply: the JSON body, or the SSE frames. */
export function replyOf(adapter: AdapterId, name: FixtureName, stream: boolean): Reply {
  const f = fixture(adapter, name);
  const expectPath = WIRE[adapter].path(stream);
  if (stream) return { kind: "sse", frames: f.sse, style: WIRE[adapter].style, expectPath };
  if (f.json === undefined) throw new Error(`fixture ${adapter}/${name} has no json reply`);
  return { kind: "json", body: f.json, expectPath };
}

/** The error fixture's non-2xx reply (answered before any stream starts). */
export function httpErrorReply(adapter: AdapterId, stream: boolean): JsonReply {
  const f = fixture(adapter, "error");
  if (!f.http) throw new Error(`fixture ${adapter}/error has no http reply`);
  const reply: JsonReply = { kind: "json", status: f.http.status, body: f.http.body, expectPath: WIRE[adapter].path(stream) };
  if (f.http.headers) reply.headers = f.http.headers;
  return reply;
}

/** A plain upstream failure (HTTP 500 in the upstream's own error dialect). */
export function serverErrorReply(adapter: AdapterId, stream: boolean): JsonReply {
  const bodies: Record<AdapterId, unknown> = {
    openai: { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } },
    "openai-responses": { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: "server_error" } },
    anthropic: { type: "error", error: { type: "api_error", message: "Internal server error" }, request_id: "req_011CSHoEeqs5C35K2UUqR800" },
    gemini: { error: { code: 500, message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", status: "INTERNAL" } },
    bedrock: { message: "The system encountered an unexpected error during processing. Try your request again." },
    // Azure OpenAI
    azure: { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } },
    "azure-responses": { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: "server_error" } },
    // Google Vertex AI
    vertex: { error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" } },
    "vertex-anthropic": { type: "error", error: { type: "api_error", message: "Internal server error" } },
  };
  const reply: JsonReply = { kind: "json", status: 500, body: bodies[adapter], expectPath: WIRE[adapter].path(stream) };
  if (adapter === "bedrock") reply.headers = { "x-amzn-errortype": "InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/" };
  return reply;
}

/** The error fixture's stream: partial output, then the upstream's own in-band error. */
export function midStreamErrorReply(adapter: AdapterId): SseReply {
  return { kind: "sse", frames: fixture(adapter, "error").sse, style: WIRE[adapter].style, expectPath: WIRE[adapter].path(true) };
}

/** The first frame of the text stream that carries output text (everything before it is preamble). */
export function firstOutputFrame(adapter: AdapterId): number {
  const index = fixture(adapter, "text").sse.findIndex((frame) => JSON.stringify(frame.data).includes(FIRST_TEXT));
  if (index < 0) throw new Error(`fixture ${adapter}/text has no "${FIRST_TEXT}" frame`);
  return index;
}

/** The first text fragment of every `text` fixture. */
export const FIRST_TEXT = "The capital";

/** The text stream up to and including its first text fragment, then the connection drops (no terminal event). */
export function resetReply(adapter: AdapterId): SseReply {
  const all = fixture(adapter, "text").sse;
  return { kind: "sse", frames: all.slice(0, firstOutputFrame(adapter) + 1), style: WIRE[adapter].style, end: "reset", expectPath: WIRE[adapter].path(true) };
}
