/**
 * Anthropic Messages SSE → canonical stream events (Portkey-style `stream` transform):
 * `message_start` → start + usage; `content_block_*` → id-keyed part events (`input_json_delta` → tool-call-delta,
 * `signature_delta` → the reasoning-end signature, `citations_delta` → text-end annotations; a web search's
 * `server_tool_use` → `server-tool-start` once its input is whole, its `web_search_tool_result` → `server-tool-end`);
 * `message_delta` → usage; `message_stop` → finish; `error` → error. A stream cut before `message_stop` becomes an
 * error, never a silent truncation.
 */
import type { ProviderCall, StreamEvent } from "../../core/sdk/index.ts";
import { ANTHROPIC_REASONING_FORMAT, parseTypedEvent, type SseEvent, streamInterrupted, streamReadFailure, warnUnsupported } from "../../core/sdk/provider.ts";
import { mapAnthropicError } from "./errors.ts";
import { annotationsOf } from "./citations.ts";
import { mapStopReason, mapUsage, mergeUsage } from "./finish-usage.ts";
import { isWebSearchResult, isWebSearchUse, queryOf, webSearchOutcome, webSearchPartName } from "./web-search-blocks.ts";
import type { WireBlock, WireStopDetails, WireStreamEvent, WireUsage } from "./wire.ts";

interface OpenBlock {
  /** `search`: a web search's `server_tool_use`, announced once its input is complete. */
  kind: "text" | "reasoning" | "tool" | "search" | "ignored";
  id: string;
  signature?: string;
  citations: unknown[];
  /** A text block's text (its citations' spans are found in it); a search's input JSON so far. */
  text: string;
}

/** Per-stream translation state. */
class AnthropicStreamState {
  readonly blocks = new Map<number, OpenBlock>();
  /** Web searches announced (`server-tool-start`), by id, with their query: each result block closes one. */
  private readonly searches = new Map<string, string>();
  private readonly searchName: string;
  usage: WireUsage = {};
  stopReason: string | null | undefined;
  stopSequence: string | null | undefined;
  stopDetails: WireStopDetails | null | undefined;
  started = false;

  constructor(private readonly call: ProviderCall) {
    this.searchName = webSearchPartName(call.request);
  }

  start(event: WireStreamEvent | undefined): StreamEvent {
    this.started = true;
    const message = event?.message;
    const start: Extract<StreamEvent, { type: "start" }> = {
      type: "start",
      id: message?.id ?? "",
      model: message?.model ?? this.call.target.upstreamModel,
      provider: this.call.target.providerId,
      created: Math.floor(this.call.helpers.now() / 1000),
    };
    // As the non-streamed response does (response.ts): the tier Anthropic served the request on.
    if (typeof message?.usage?.service_tier === "string") start.serviceTier = message.usage.service_tier;
    return start;
  }

  *blockStart(index: number, block: WireBlock): Generator<StreamEvent> {
    switch (block.type) {
      case "text": {
        const id = `text-${index}`;
        this.blocks.set(index, { kind: "text", id, citations: [...(block.citations ?? [])], text: block.text ?? "" });
        yield { type: "text-start", id };
        if (block.text) yield { type: "text-delta", id, delta: block.text };
        return;
      }
      case "thinking": {
        const id = `reasoning-${index}`;
        const open: OpenBlock = { kind: "reasoning", id, citations: [], text: "" };
        if (block.signature) open.signature = block.signature;
        this.blocks.set(index, open);
        yield { type: "reasoning-start", id, format: ANTHROPIC_REASONING_FORMAT };
        if (block.thinking) yield { type: "reasoning-delta", id, delta: block.thinking };
        return;
      }
      case "redacted_thinking": {
        // Arrives whole; nothing follows but its content_block_stop.
        const id = `reasoning-${index}`;
        this.blocks.set(index, { kind: "ignored", id, citations: [], text: "" });
        yield { type: "reasoning-start", id, format: ANTHROPIC_REASONING_FORMAT };
        yield { type: "reasoning-end", id, redacted: block.data ?? "" };
        return;
      }
      case "tool_use": {
        const id = block.id ?? `toolu_${index}`;
        this.blocks.set(index, { kind: "tool", id, citations: [], text: "" });
        yield { type: "tool-call-start", id, name: block.name ?? "" };
        // Input normally streams as input_json_delta from `{}`; a non-empty start input is the whole input.
        if (typeof block.input === "object" && block.input !== null && Object.keys(block.input).length > 0) {
          yield { type: "tool-call-delta", id, delta: JSON.stringify(block.input) };
        }
        return;
      }
      case "server_tool_use":
      case "web_search_tool_result":
        yield* this.searchBlockStart(index, block);
        return;
      default:
        this.blocks.set(index, { kind: "ignored", id: "", citations: [], text: "" });
        warnUnsupported(this.call, `content.${block.type}`, `Anthropic streamed a ${block.type} block, which the gateway cannot relay; it was dropped`);
    }
  }

  /**
   * A web search's blocks: the `server_tool_use` opens a search (its input streams as `input_json_delta` from `{}`); the
   * `web_search_tool_result` arrives whole in its start and ends the search it names. Other server tools' blocks
   * (code execution, web fetch) have no canonical form here and are reported.
   */
  *searchBlockStart(index: number, block: WireBlock): Generator<StreamEvent> {
    if (isWebSearchUse(block)) {
      const start = typeof block.input === "object" && block.input !== null && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
      this.blocks.set(index, { kind: "search", id: block.id ?? `srvtoolu_${index}`, citations: [], text: start });
      return;
    }
    this.blocks.set(index, { kind: "ignored", id: "", citations: [], text: "" });
    const query = isWebSearchResult(block) ? this.searches.get(block.tool_use_id as string) : undefined;
    if (query === undefined) {
      warnUnsupported(this.call, `content.${block.type}`, `Anthropic streamed a ${block.type} block, which the gateway cannot relay; it was dropped`);
      return;
    }
    this.searches.delete(block.tool_use_id as string);
    yield { type: "server-tool-end", id: block.tool_use_id as string, ...webSearchOutcome(block.content, query) };
  }

  *blockDelta(index: number, delta: NonNullable<WireStreamEvent["delta"]>): Generator<StreamEvent> {
    const block = this.blocks.get(index);
    if (block === undefined || block.kind === "ignored") return;
    switch (delta.type) {
      case "text_delta":
        if (block.kind === "text" && delta.text) {
          block.text += delta.text;
          yield { type: "text-delta", id: block.id, delta: delta.text };
        }
        return;
      case "citations_delta":
        if (block.kind === "text" && delta.citation !== undefined) block.citations.push(delta.citation);
        return;
      case "thinking_delta":
        if (block.kind === "reasoning" && delta.thinking) yield { type: "reasoning-delta", id: block.id, delta: delta.thinking };
        return;
      case "signature_delta":
        if (block.kind === "reasoning" && delta.signature !== undefined) block.signature = delta.signature;
        return;
      case "input_json_delta":
        if (block.kind === "tool" && delta.partial_json) yield { type: "tool-call-delta", id: block.id, delta: delta.partial_json };
        if (block.kind === "search" && delta.partial_json) block.text += delta.partial_json;
        return;
    }
  }

  *blockStop(index: number): Generator<StreamEvent> {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (block === undefined) return;
    switch (block.kind) {
      case "text":
        yield block.citations.length > 0 ? { type: "text-end", id: block.id, annotations: annotationsOf(block.citations, block.text) } : { type: "text-end", id: block.id };
        return;
      case "reasoning":
        yield block.signature ? { type: "reasoning-end", id: block.id, signature: block.signature } : { type: "reasoning-end", id: block.id };
        return;
      case "tool":
        yield { type: "tool-call-end", id: block.id };
        return;
      case "search": {
        // The call is shown once its input (the query) is whole: clients see it with its arguments, as Anthropic ran it.
        const args = block.text.trim() === "" ? "{}" : block.text;
        this.searches.set(block.id, queryOf(args));
        yield { type: "server-tool-start", id: block.id, callId: block.id, name: this.searchName, arguments: args };
        return;
      }
      case "ignored":
        return;
    }
  }

  usageEvent(update: WireUsage | undefined): StreamEvent | undefined {
    if (update === undefined) return undefined;
    this.usage = mergeUsage(this.usage, update);
    return { type: "usage", usage: mapUsage(this.usage) };
  }
}

/** Translates the parsed SSE of one Anthropic stream. A client abort is rethrown; other failures end in `error`. */
export async function* anthropicStreamToEvents(sse: AsyncIterable<SseEvent>, call: ProviderCall): AsyncGenerator<StreamEvent, void, undefined> {
  const state = new AnthropicStreamState(call);
  try {
    for await (const sseEvent of sse) {
      const event = parseTypedEvent<WireStreamEvent>(sseEvent.data);
      if (event === undefined) {
        if (!state.started) yield state.start(undefined);
        yield { type: "error", error: streamInterrupted(call, "Upstream stream sent malformed data") };
        return;
      }
      if (event.type === "ping") continue;
      if (!state.started) yield state.start(event);
      switch (event.type) {
        case "message_start": {
          const usage = state.usageEvent(event.message?.usage);
          if (usage) yield usage;
          break;
        }
        case "content_block_start":
          if (event.content_block) yield* state.blockStart(event.index ?? 0, event.content_block);
          break;
        case "content_block_delta":
          if (event.delta) yield* state.blockDelta(event.index ?? 0, event.delta);
          break;
        case "content_block_stop":
          yield* state.blockStop(event.index ?? 0);
          break;
        case "message_delta": {
          if (event.delta?.stop_reason !== undefined) state.stopReason = event.delta.stop_reason;
          if (event.delta?.stop_sequence !== undefined) state.stopSequence = event.delta.stop_sequence;
          if (event.delta?.stop_details !== undefined) state.stopDetails = event.delta.stop_details;
          const usage = state.usageEvent(event.usage);
          if (usage) yield usage;
          break;
        }
        case "message_stop":
          yield { type: "finish", finish: mapStopReason(state.stopReason, state.stopSequence, state.stopDetails) };
          return;
        case "error":
          yield { type: "error", error: mapAnthropicError(200, event, new Headers(), call.helpers.error) };
          return;
        default:
          // Unknown event kinds are newer API additions; skipping them keeps the stream usable.
          break;
      }
    }
  } catch (thrown) {
    const failure = streamReadFailure(call, thrown);
    if (!state.started) yield state.start(undefined);
    yield { type: "error", error: failure };
    return;
  }
  if (!state.started) yield state.start(undefined);
  yield { type: "error", error: streamInterrupted(call, "Upstream stream ended before message_stop") };
}
