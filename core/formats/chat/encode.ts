/** Canonical response → `chat.completion` body (spec "Chat-completions result body"; also batch result bodies). */
import { trailerMetadata } from "../shared/trailer-metadata.ts";
import type { EncodeContext } from "../format.ts";
import { mergeAudio } from "../../model/audio.ts";
import type { AudioPart, ImagePart, Part, ReasoningPart, ServerToolPart, TextPart, ToolCallPart } from "../../model/parts.ts";
import { chatAnnotations } from "./annotations.ts";
import type { AlignmentReport, CanonicalResponse } from "../../model/response.ts";
import { chatError, type ChatError } from "./error.ts";
import { chatFinishReason, nativeFinishReason, type ChatFinishReason } from "./finish.ts";
import { encodeReasoningDetails, reasoningText, type ReasoningDetailOut } from "./reasoning-details.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import { peerSpelling } from "../shared/tool-spelling.ts";
import { serverToolCallOut, type ChatServerToolCallOut } from "./server-tool-calls.ts";
import { chatUsage, type ChatUsage } from "./usage.ts";

/** A tool call as the result lists it; `index` is its position among this response's tool calls. */
export interface ChatToolCallOut {
  id: string;
  index: number;
  type: "function";
  function: { name: string; arguments: string };
}

/** The assistant message of choice 0. */
export interface ChatMessageOut {
  role: "assistant";
  content: string | null;
  refusal: string | null;
  reasoning: string | null;
  reasoning_details?: ReasoningDetailOut[];
  tool_calls?: ChatToolCallOut[];
  /** Server tools the gateway ran for the model, in order (./server-tool-calls.ts). */
  server_tool_calls?: ChatServerToolCallOut[];
  annotations?: unknown[];
  images?: Array<{ type: "image_url"; image_url: { url: string } }>;
  /** Audio the model spoke (OpenAI's `message.audio`; `format` when known, as OpenRouter adds it). */
  audio?: ChatAudioOut;
}

/** `message.audio` / `delta.audio`: in a stream each field may come in its own delta (`data`, `transcript` append). */
export interface ChatAudioOut {
  id?: string;
  data?: string;
  transcript?: string;
  expires_at?: number;
  format?: string;
}

/** Chat's audio object for an audio part (or a piece of one: only the fields it has). */
export function chatAudio(audio: Omit<AudioPart, "type" | "data"> & { data?: string }): ChatAudioOut {
  const out: ChatAudioOut = {};
  if (audio.id !== undefined) out.id = audio.id;
  if (audio.data !== undefined) out.data = audio.data;
  if (audio.transcript !== undefined) out.transcript = audio.transcript;
  if (audio.expiresAt !== undefined) out.expires_at = audio.expiresAt;
  if (audio.format !== undefined) out.format = audio.format;
  return out;
}

/** Chat `logprobs` of a choice. */
export type ChatLogprobs = { content: unknown[]; refusal: unknown[] | null } | null;

/** The `chat.completion` body (a type alias, so it is a `Record<string, unknown>` for the WireFormat contract). */
export type ChatCompletion = {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  provider: string;
  service_tier: string | null;
  system_fingerprint: string | null;
  choices: Array<{
    index: 0;
    finish_reason: ChatFinishReason;
    native_finish_reason: string | null;
    logprobs: ChatLogprobs;
    message: ChatMessageOut;
  }>;
  usage: ChatUsage;
  /** Only when the response failed after generation started (same object as the stream's in-band error). */
  error?: ChatError;
  /** The alignment plugin's report (beta). */
  alignment?: AlignmentReport;
  service_metadata?: Record<string, unknown>;
};

function ofType<T extends Part["type"]>(parts: readonly Part[], type: T): Array<Extract<Part, { type: T }>> {
  return parts.filter((part): part is Extract<Part, { type: T }> => part.type === type);
}

/**
 * Every text part's annotations in chat's shape; citation indexes are shifted to where the part starts in
 * `content` (all text parts joined), which is also where the stream encoder puts them.
 */
function messageAnnotations(texts: readonly TextPart[]): unknown[] {
  let offset = 0;
  return texts.flatMap((part) => {
    const out = chatAnnotations(part.annotations ?? [], offset);
    offset += part.text.length;
    return out;
  });
}

/**
 * Builds the assistant message; `content` is null when no text was produced (e.g. only tool calls). The text of
 * every turn of the agent loop is joined into one `content`, as a streamed reply's deltas concatenate.
 */
export function chatMessage(parts: readonly Part[], request?: Pick<CanonicalRequest, "tools">): ChatMessageOut {
  const texts: TextPart[] = ofType(parts, "text");
  const reasoning: ReasoningPart[] = ofType(parts, "reasoning");
  const calls: ToolCallPart[] = ofType(parts, "tool-call");
  const images: ImagePart[] = ofType(parts, "image");
  const serverTools: ServerToolPart[] = ofType(parts, "server-tool");
  const content = texts.map((part) => part.text).join("");
  const refusal = ofType(parts, "refusal").map((part) => part.text).join("");
  const message: ChatMessageOut = {
    role: "assistant",
    content: content === "" ? null : content,
    refusal: refusal === "" ? null : refusal,
    reasoning: reasoningText(reasoning),
  };
  const details = encodeReasoningDetails(reasoning);
  if (details.length > 0) message.reasoning_details = details;
  if (calls.length > 0) {
    message.tool_calls = calls.map((call, index) => ({
      id: call.id,
      index,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  if (serverTools.length > 0) message.server_tool_calls = serverTools.map((part) => serverToolCallOut(part, request && peerSpelling(request, part.name)));
  const annotations = messageAnnotations(texts);
  if (annotations.length > 0) message.annotations = annotations;
  if (images.length > 0) message.images = images.map((image) => ({ type: "image_url", image_url: { url: image.url } }));
  // One `message.audio`: audio of several turns is joined, as their text is.
  const audio = mergeAudio(ofType(parts, "audio"));
  if (audio !== undefined) message.audio = chatAudio(audio);
  return message;
}

/** Renders the whole body; `id` is the generation id the client sees (also the `X-Generation-Id` header). */
export function encodeChat(response: CanonicalResponse, ctx: EncodeContext): ChatCompletion {
  const body: ChatCompletion = {
    id: ctx.generationId,
    object: "chat.completion",
    created: response.created,
    model: response.model,
    provider: response.provider,
    service_tier: response.serviceTier ?? null,
    system_fingerprint: response.systemFingerprint ?? null,
    choices: [
      {
        index: 0,
        finish_reason: chatFinishReason(response.finish),
        native_finish_reason: nativeFinishReason(response.finish),
        logprobs: response.logprobs?.length ? { content: response.logprobs, refusal: null } : null,
        message: chatMessage(response.parts, ctx.request),
      },
    ],
    usage: chatUsage(response.usage, response.cost),
  };
  if (response.error) body.error = chatError(response.error);
  if (response.alignment) body.alignment = response.alignment;
  const metadata = trailerMetadata(ctx.trailer, ctx.request.warnings);
  if (metadata) body.service_metadata = metadata;
  return body;
}
