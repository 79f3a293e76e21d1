/**
 * The client side of the conformance matrix: one neutral conversation, rendered as each inbound format's request
 * body, sent over HTTP, and what came back (JSON or SSE) folded into one neutral `Seen` — by parsing the format's
 * own wire fields, so a cell asserts exactly what a client of that format sees.
 */
import type { TestGateway } from "../../support/gateway.ts";
import { chatDriver } from "./client-chat.ts";
import { messagesDriver } from "./client-messages.ts";
import { responsesDriver } from "./client-responses.ts";

export type FormatId = "chat" | "responses" | "messages";
export const FORMATS: readonly FormatId[] = ["chat", "responses", "messages"];

export interface ToolDef {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export const WEATHER_TOOL: ToolDef = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } }, required: ["city"] },
};

/** One turn of the neutral conversation. `replay` sends back, untouched, what an earlier turn's client received. */
export type Turn =
  | { role: "user"; text: string; image?: string }
  | { role: "assistant"; text: string }
  | { role: "replay"; items: unknown[] }
  | { role: "tool"; callId: string; name: string; content: string };

export interface Conversation {
  model: string;
  system?: string;
  turns: Turn[];
  tools?: ToolDef[];
  maxTokens?: number;
  stream: boolean;
  /** Extra top-level body fields, in the format's own dialect. */
  extra?: Record<string, unknown>;
}

export type SeenFinish = "stop" | "length" | "tool_calls" | "refusal" | "error" | "unknown";

export interface SeenUsage {
  /** Prompt tokens including cached ones (each driver converts from its format's convention). */
  input: number;
  cacheRead: number;
  /** Only formats that show cache writes (chat, messages). */
  cacheWrite?: number;
  output: number;
  reasoning: number;
  cost: number | undefined;
}

/** A parsed SSE frame (`comment` frames are keep-alives). */
export interface Frame {
  event?: string;
  data?: string;
  comment?: string;
}

/** What the client saw, in neutral terms, plus the format's raw material for format-specific assertions. */
export interface Seen {
  status: number;
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: SeenFinish;
  /** The model id the reply names (the client's id, not the upstream's). */
  model: string | undefined;
  /** The provider the reply names (chat and Messages results carry one; Responses results do not). */
  provider: string | undefined;
  /** The format's own finish value (finish_reason / status+reason / stop_reason). */
  nativeFinish: unknown;
  usage: SeenUsage | undefined;
  /** Envelope error (non-200) or in-band terminal error. */
  error: { type: string | undefined; status: number | undefined; message: string | undefined; raw: unknown } | undefined;
  metadata: Record<string, unknown> | undefined;
  /** Native history entries to send back next turn (chat message, Responses output items, Messages assistant turn). */
  replay: unknown[];
  /** Streams: the frames, the concatenated text deltas, the concatenated argument deltas per call. */
  frames: Frame[];
  deltaText: string;
  deltaArgs: string[];
  /** Streams: the format's proper end arrived (chat `[DONE]`, Responses terminal event + `[DONE]`, Messages `message_stop` or `error`). */
  ended: boolean;
  body: unknown;
  /** The HTTP reply's headers (set by `send`). */
  headers: Headers;
}

export interface FormatDriver {
  id: FormatId;
  path: string;
  body(conv: Conversation): Record<string, unknown>;
  fromJson(body: Record<string, unknown>): Seen;
  fromFrames(frames: Frame[]): Seen;
}

export const DRIVERS: Record<FormatId, FormatDriver> = { chat: chatDriver, responses: responsesDriver, messages: messagesDriver };

/** An empty Seen to fill. */
export function blankSeen(status = 200): Seen {
  return { status, model: undefined, provider: undefined, text: "", reasoning: "", toolCalls: [], finish: "unknown", nativeFinish: undefined, usage: undefined, error: undefined, metadata: undefined, replay: [], frames: [], deltaText: "", deltaArgs: [], ended: false, body: undefined, headers: new Headers() };
}

/** Splits an SSE body into frames (LF or CRLF), keeping comment lines as keep-alive frames. */
export function parseFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    const frame: Frame = {};
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) frame.comment = line.slice(1).trim();
      else if (line.startsWith("event:")) frame.event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) frame.data = data.join("\n");
    frames.push(frame);
  }
  return frames;
}

/** JSON of a data frame, or undefined for `[DONE]` / comments. */
export function frameJson(frame: Frame): Record<string, unknown> | undefined {
  if (frame.data === undefined || frame.data === "[DONE]") return undefined;
  return JSON.parse(frame.data) as Record<string, unknown>;
}

/** The error envelope of a non-200 reply (spec "Errors"). */
function fromEnvelope(status: number, body: Record<string, unknown>): Seen {
  const seen = blankSeen(status);
  const error = body.error as { code?: number; message?: string; metadata?: Record<string, unknown> } | undefined;
  seen.error = { type: error?.metadata?.error_type as string | undefined, status: error?.code, message: error?.message, raw: body };
  seen.finish = "error";
  seen.metadata = (body.service_metadata as Record<string, unknown> | null) ?? undefined;
  seen.body = body;
  return seen;
}

export interface SendOptions {
  metadata?: boolean;
  headers?: Record<string, string>;
}

/** Sends the conversation in `format` and reads the whole reply. */
export async function send(gw: TestGateway, format: FormatId, conv: Conversation, options: SendOptions = {}): Promise<Seen> {
  const driver = DRIVERS[format];
  const headers: Record<string, string> = { ...options.headers };
  if (options.metadata) headers["x-service-metadata"] = "enabled";
  const res = await gw.request(driver.path, { method: "POST", json: driver.body(conv), headers });
  const type = res.headers.get("content-type") ?? "";
  let seen: Seen;
  if (res.status !== 200) seen = fromEnvelope(res.status, (await res.json()) as Record<string, unknown>);
  else if (type.startsWith("text/event-stream")) seen = driver.fromFrames(parseFrames(await res.text()));
  else seen = driver.fromJson((await res.json()) as Record<string, unknown>);
  seen.headers = res.headers;
  return seen;
}

/** Tool-call arguments (JSON text) as an object, for comparisons that must not depend on whitespace. */
export function args(text: string): unknown {
  return JSON.parse(text);
}
