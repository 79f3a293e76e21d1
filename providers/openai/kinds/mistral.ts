/**
 * Mistral (`api.mistral.ai`): a strict schema (an unknown field is a 422 `extra_forbidden`), so only the fields it
 * knows are sent and the others are dropped with a warning; `seed` is `random_seed`; tool-call ids must be nine
 * letters and digits, so other ids are mapped to such ids on the way out (the same id always to the same one) and
 * back on the way in, and the client always sees its own; its `model_length` finish is `length`; Magistral's
 * content comes as typed chunks (`thinking` and `text`); its errors carry `message` as a sentence or as a validation
 * `detail` list.
 */
import type { CanonicalRequest, CanonicalResponse, Finish, GatewayError, StreamEvent } from "../../../core/sdk/index.ts";
import { isPlainObject, mapUpstreamError, type ErrorFactory, warnUnsupported } from "../../../core/sdk/provider.ts";
import type { ReplyQuirk } from "../quirks.ts";
import type { ChatCompletion, ChatRequestBody, WireMessageOut } from "../wire.ts";
import { type KindSpec, stripMessageNames, stripReasoningHistory, useMaxTokens } from "./shared.ts";
import { mistralEmbed } from "./mistral-embed.ts";

/** The request fields Mistral's chat completions accept. */
const ACCEPTED = new Set([
  "model",
  "messages",
  "temperature",
  "top_p",
  "max_tokens",
  "stream",
  "stop",
  "random_seed",
  "response_format",
  "tools",
  "tool_choice",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "parallel_tool_calls",
  "prediction",
  "prompt_mode",
  "safe_prompt",
]);

/** Fields the gateway itself sets that Mistral does without (it always reports usage in the last chunk). */
const SILENT = new Set(["stream_options"]);

const VALID_ID = /^[A-Za-z0-9]{9}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The nine-character id an id maps to: itself when already valid, else a digest of it (stable across requests). */
export function mistralToolId(id: string): string {
  if (VALID_ID.test(id)) return id;
  const digest = new Bun.CryptoHasher("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}

/** Maps the body's tool-call ids (assistant calls and the tool results answering them). */
function mapToolIds(body: ChatRequestBody): void {
  for (const message of body.messages) {
    if (message.role === "assistant") for (const call of message.tool_calls ?? []) call.id = mistralToolId(call.id);
    else if (message.role === "tool") message.tool_call_id = mistralToolId(message.tool_call_id);
  }
}

/** Mistral's id → the client's, for every id of the request that had to be mapped. */
function reverseIds(request: CanonicalRequest): Map<string, string> {
  const back = new Map<string, string>();
  for (const message of request.messages) {
    for (const part of message.parts) {
      const id = part.type === "tool-call" ? part.id : part.type === "tool-result" ? part.callId : undefined;
      if (id !== undefined && !VALID_ID.test(id)) back.set(mistralToolId(id), id);
    }
  }
  return back;
}

/** Magistral's typed content (`[{type:"thinking", thinking:[…]}, {type:"text", text}]`) → text plus `reasoning`. */
function flattenContent(message: WireMessageOut | undefined): void {
  const content = message?.content as unknown;
  if (message === undefined || !Array.isArray(content)) return;
  let text = "";
  let reasoning = "";
  for (const chunk of content as unknown[]) {
    if (!isPlainObject(chunk)) continue;
    if (chunk.type === "text" && typeof chunk.text === "string") text += chunk.text;
    else if (chunk.type === "thinking" && Array.isArray(chunk.thinking)) {
      for (const inner of chunk.thinking as unknown[]) if (isPlainObject(inner) && typeof inner.text === "string") reasoning += inner.text;
    }
  }
  message.content = text === "" ? null : text;
  if (reasoning !== "") message.reasoning = (message.reasoning ?? "") + reasoning;
}

function finishOf(finish: Finish): Finish {
  return finish.raw === "model_length" ? { reason: "length", raw: "model_length" } : finish;
}

/** The reply of one call: chunks flattened, `model_length` read as `length`, mapped ids given back. */
function mistralReply(back: Map<string, string>): ReplyQuirk {
  const reply: ReplyQuirk = { chunk: flattenChunk, finish: finishOf };
  if (back.size === 0) return reply;
  const original = (id: string): string => back.get(id) ?? id;
  reply.response = (response: CanonicalResponse) => {
    for (const part of response.parts) if (part.type === "tool-call") part.id = original(part.id);
  };
  reply.events = async function* (events) {
    for await (const event of events) {
      if ((event.type === "tool-call-start" || event.type === "tool-call-delta" || event.type === "tool-call-end") && back.has(event.id)) {
        yield { ...event, id: original(event.id) } as StreamEvent;
      } else yield event;
    }
  };
  return reply;
}

function flattenChunk(chunk: ChatCompletion): void {
  for (const choice of chunk.choices ?? []) {
    flattenContent(choice.message);
    flattenContent(choice.delta);
  }
}

/** Mistral's errors: `message` may be a validation object (`{detail: [{loc, msg}]}`) instead of a sentence. */
export function mapMistralError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  if (isPlainObject(body) && isPlainObject(body.message) && Array.isArray(body.message.detail)) {
    const details = (body.message.detail as unknown[])
      .filter(isPlainObject)
      .map((d) => `${Array.isArray(d.loc) ? d.loc.join(".") : "request"}: ${typeof d.msg === "string" ? d.msg : "invalid"}`);
    return mapUpstreamError(status, { ...body, message: details.join("; ") || "Invalid request" }, headers, make);
  }
  return mapUpstreamError(status, body, headers, make);
}

export const mistral: KindSpec = {
  description: "Mistral",
  defaultBaseUrl: "https://api.mistral.ai/v1",
  requiresKey: true,
  unsupported: ["top_k", "min_p", "repetition_penalty", "logprobs", "top_logprobs", "logit_bias", "verbosity"],
  quirks: {
    request(body, call) {
      const warnings = call.request.warnings;
      useMaxTokens(body, call);
      if (body.seed !== undefined) {
        body.random_seed = body.seed;
        delete body.seed;
      }
      stripReasoningHistory(body);
      stripMessageNames(body, "Mistral", warnings);
      for (const field of Object.keys(body)) {
        if (ACCEPTED.has(field)) continue;
        delete body[field];
        if (!SILENT.has(field)) warnUnsupported(warnings, field, `Mistral refuses ${field}; it was not sent`);
      }
      mapToolIds(body);
    },
    reply: (call) => mistralReply(reverseIds(call.request)),
    mapError: mapMistralError,
  },
  embed: (call) => mistralEmbed(call, mapMistralError),
};
