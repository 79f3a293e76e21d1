/**
 * Canonical output parts → Responses output items (spec "Responses result"): message items holding
 * `output_text` / `refusal` content, reasoning items, function_call items and `service:*` server-tool items. Shared
 * by the result encoder and the stream encoder so a streamed `response.completed` and a non-streamed result are
 * built by the same code.
 */
import { parseDataUrl } from "../../images/data-url.ts";
import type { ImagePart, Part, ReasoningPart, ServerToolPart, ToolCallPart } from "../../model/parts.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import { isWebSearchShorthand } from "../shared/hosted-web-search.ts";
import { serverToolFields } from "../shared/server-tool-fields.ts";

/** A Responses output item as sent on the wire. */
export type OutputItem = Record<string, unknown>;

/** Output item status values the encoders use. */
export type ItemStatus = "completed" | "incomplete" | "in_progress";

/** Marker inside ids the gateway made up (no upstream id existed), so they are never passed upstream as real ids. */
const GATEWAY_ID_MARKER = "_gw_";

/**
 * Deterministic item ids: the same generation and output index always give the same id, so the streamed events and
 * the final object agree without sharing state. Upstream item ids win where the canonical part kept one.
 */
export const itemIds = {
  message: (generationId: string, outputIndex: number) => `msg${GATEWAY_ID_MARKER}${generationId}_${outputIndex}`,
  reasoning: (generationId: string, outputIndex: number, upstreamId?: string) => upstreamId ?? `rs${GATEWAY_ID_MARKER}${generationId}_${outputIndex}`,
  functionCall: (generationId: string, outputIndex: number, upstreamId?: string) => upstreamId ?? `fc${GATEWAY_ID_MARKER}${generationId}_${outputIndex}`,
  image: (generationId: string, outputIndex: number) => `ig${GATEWAY_ID_MARKER}${generationId}_${outputIndex}`,
};

/** True for an item id `itemIds` made up; a client echoing it back must not make it look like an upstream id. */
export function isGatewayItemId(id: string): boolean {
  return /^(?:msg|rs|fc|ig)_gw_/.test(id);
}

/** `output_text` content; `annotations` is always an array, `logprobs` only when known. */
export function outputText(text: string, annotations: unknown[] | undefined, logprobs?: unknown[]): Record<string, unknown> {
  const content: Record<string, unknown> = { type: "output_text", text, annotations: annotations ?? [] };
  if (logprobs !== undefined) content.logprobs = logprobs;
  return content;
}

/** `refusal` content. */
export function refusalContent(text: string): Record<string, unknown> {
  return { type: "refusal", refusal: text };
}

/** Assistant message item. */
export function messageItem(id: string, content: Array<Record<string, unknown>>, status: ItemStatus): OutputItem {
  return { id, type: "message", role: "assistant", status, content };
}

/**
 * Reasoning item, as OpenAI's API shapes it: reasoning text as `reasoning_text` content, and a `summary` only when
 * the request asked for one (`reasoning.summary`) — the same words are never in both. Asked for, the summary is the
 * upstream's own; reasoning that came as text alone (Anthropic, Gemini, chat upstreams) is then shown as the summary
 * instead of as content (clients such as the AI SDK read only `summary`). A summary the upstream sent of its own
 * accord is kept as it came. Opaque state (encrypted content, a signature) is carried for round trips.
 */
export function reasoningItem(id: string, part: ReasoningPart, summaryAsked: boolean): OutputItem {
  const standIn = textStandsInForSummary(part, summaryAsked);
  const summary = standIn ? [part.text] : (part.summary ?? []);
  const item: OutputItem = { id, type: "reasoning", summary: summary.map((text) => ({ type: "summary_text", text })) };
  if (part.text !== "" && !standIn) item.content = [{ type: "reasoning_text", text: part.text }];
  if (part.encrypted !== undefined) item.encrypted_content = part.encrypted;
  if (part.signature !== undefined) item.signature = part.signature;
  if (part.format !== undefined) item.format = part.format;
  return item;
}

/** Whether the request asked for reasoning summaries (Responses `reasoning.summary`). */
export function summaryAsked(request: CanonicalRequest): boolean {
  return request.reasoning?.summary !== undefined;
}

/** True when a summary was asked for and the part's text is all it has: the text is shown as its summary. */
export function textStandsInForSummary(part: ReasoningPart, summaryAsked: boolean): boolean {
  return summaryAsked && part.text !== "" && !(part.summary !== undefined && part.summary.length > 0);
}

/** function_call item: `call_id` is what the client echoes back with its `function_call_output`. */
export function functionCallItem(id: string, part: ToolCallPart, status: ItemStatus): OutputItem {
  return { id, type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments, status };
}

/**
 * A generated image (image output, `modalities: ["image", …]`) as OpenAI's `image_generation_call` item: `result`
 * is the image's base64; an image the upstream gave only as an http(s) URL has `result: null` and that `url`.
 * While announced in a stream (`in_progress`) it has no result yet.
 */
export function imageGenerationItem(id: string, part: ImagePart | undefined, status: ItemStatus): OutputItem {
  const item: OutputItem = { id, type: "image_generation_call", status };
  if (part === undefined) return item;
  const data = parseDataUrl(part.url);
  item.result = data?.base64 ?? null;
  if (data === undefined) item.url = part.url;
  return item;
}

/**
 * A server tool the gateway ran: `type` is the tool (`service:web_search`, or the client's own
 * spelling `shownAs`: the peer's `openrouter:web_search`), `id` the part's own id. While running (`in_progress`, the
 * stream's `output_item.added`) it has only the call; finished, it adds the tool's fields
 * (../shared/server-tool-fields.ts) and `error` when it failed. A search the client declared as OpenAI's hosted
 * `web_search` is OpenAI's `web_search_call` item, which its clients parse (the AI SDK rejects a reply with an item
 * type it does not know).
 */
export function serverToolItem(part: ServerToolPart, running = false, shownAs?: string): OutputItem {
  if (shownAs !== undefined && isWebSearchShorthand(shownAs)) return webSearchCallItem(part, running);
  const item: OutputItem = { type: shownAs ?? part.name, id: part.id, call_id: part.callId, status: running ? "in_progress" : part.status, arguments: part.arguments };
  return running ? item : { ...item, ...serverToolFields(part) };
}

/**
 * OpenAI's `web_search_call`: `action` `{type: "search", query, sources: [{type: "url", url}]}` (the sources are
 * always there, as with `include: ["web_search_call.action.sources"]`); status `in_progress`, `completed` or `failed`.
 */
function webSearchCallItem(part: ServerToolPart, running: boolean): OutputItem {
  const { action } = serverToolFields(part) as { action: Record<string, unknown> };
  if (running) return { type: "web_search_call", id: part.id, status: "in_progress", action: { type: "search", query: action.query } };
  return { type: "web_search_call", id: part.id, status: part.status === "completed" ? "completed" : "failed", action };
}

/** How `outputItems` names and marks the items it builds. */
export interface OutputOptions {
  generationId: string;
  /** Status of message items: `incomplete` when the response stopped early. */
  messageStatus: ItemStatus;
  /** Response-level logprobs, attached to the first `output_text`. */
  logprobs?: unknown[];
  /** The request asked for reasoning summaries (see `reasoningItem`). */
  summaryAsked: boolean;
  /** The client's own spelling of a server tool's type, when it declared the tool under one (../shared/tool-spelling.ts). */
  shownAs?: (type: string) => string | undefined;
}

/**
 * Groups parts into items in order: consecutive text / refusal parts share one message item (one content entry
 * each), every reasoning part, tool call, server tool and generated image is its own item. A server tool between
 * two texts (the agent loop's turns) therefore gives one message item per turn. Input-only parts (files, tool
 * results) have no output item and are skipped.
 */
export function outputItems(parts: Part[], options: OutputOptions): OutputItem[] {
  const items: OutputItem[] = [];
  let message: Array<Record<string, unknown>> | undefined;
  let logprobs = options.logprobs;
  for (const part of parts) {
    switch (part.type) {
      case "text":
      case "refusal": {
        if (!message) {
          message = [];
          items.push(messageItem(itemIds.message(options.generationId, items.length), message, options.messageStatus));
        }
        if (part.type === "refusal") message.push(refusalContent(part.text));
        else {
          message.push(outputText(part.text, part.annotations, logprobs));
          logprobs = undefined;
        }
        break;
      }
      case "reasoning":
        message = undefined;
        items.push(reasoningItem(itemIds.reasoning(options.generationId, items.length, part.id), part, options.summaryAsked));
        break;
      case "tool-call":
        message = undefined;
        items.push(functionCallItem(itemIds.functionCall(options.generationId, items.length, part.itemId), part, "completed"));
        break;
      case "server-tool":
        message = undefined;
        items.push(serverToolItem(part, false, options.shownAs?.(part.name)));
        break;
      case "image":
        message = undefined;
        items.push(imageGenerationItem(itemIds.image(options.generationId, items.length), part, "completed"));
        break;
      default:
        break;
    }
  }
  return items;
}
