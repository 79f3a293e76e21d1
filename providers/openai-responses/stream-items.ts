/**
 * Per-item state of an upstream Responses stream → canonical part events. Output items are keyed by
 * `output_index` (every item-scoped event carries it); text parts by item id + content index, tool calls by their
 * call id (what the client echoes back), reasoning by the item id. Upstreams that skip the incremental events and
 * only send the finished item in `response.output_item.done` still produce complete parts.
 */
import type { StreamEvent } from "../../core/sdk/index.ts";
import { imageFromItem } from "./image-item.ts";
import { reasoningFromItem, toolCallFromItem } from "./response.ts";
import { hasAction, webSearchId, webSearchOutcome, webSearchStart } from "./web-search.ts";
import type { WireOutputItem, WireStreamEvent } from "./wire.ts";

interface TextState {
  id: string;
  open: boolean;
  annotations: unknown[];
  seen: boolean;
}

interface ItemState {
  type: string;
  /** Canonical part id (reasoning: item id; tool call: call id). */
  partId: string;
  open: boolean;
  seenDelta: boolean;
  summaryParts: number;
  texts: Map<number, TextState>;
  /** A web search whose `server-tool-start` went out (once its action, the query, was known). */
  announced?: boolean;
}

/** Tracks open items and emits canonical events for them. */
export class StreamItems {
  private readonly items = new Map<number, ItemState>();
  /** True once any function call was announced (the finish is then `tool_calls`). */
  sawToolCall = false;
  /** OpenAI's own web searches that finished (counted into the usage: OpenAI's usage has no such counter). */
  webSearches = 0;

  /**
   * `onUnsupported` hears about item kinds the canonical model cannot hold (hosted-tool calls): the event stream has
   * no warning event, so the adapter logs them instead of dropping them silently.
   */
  constructor(
    private readonly newCallId: () => string,
    private readonly onUnsupported: (itemType: string) => void = () => undefined,
  ) {}

  /** Canonical events for one upstream item-scoped event. */
  handle(event: WireStreamEvent, out: StreamEvent[]): void {
    const index = event.output_index ?? 0;
    switch (event.type) {
      case "response.output_item.added":
        if (event.item) this.added(index, event.item, out);
        return;
      case "response.output_item.done":
        if (event.item) this.done(index, event.item, out);
        return;
      case "response.content_part.added":
        if (event.part?.type === "output_text") this.textAt(index, event, out);
        return;
      case "response.output_text.delta": {
        const text = this.textAt(index, event, out);
        if (!text) return;
        text.seen = true;
        const delta: StreamEvent = { type: "text-delta", id: text.id, delta: event.delta ?? "" };
        if (Array.isArray(event.logprobs) && event.logprobs.length > 0) delta.logprobs = event.logprobs;
        out.push(delta);
        return;
      }
      case "response.output_text.annotation.added": {
        const text = this.textAt(index, event, out);
        if (text && event.annotation !== undefined) text.annotations.push(event.annotation);
        return;
      }
      case "response.content_part.done":
        if (event.part?.type === "output_text") {
          const text = this.textAt(index, event, out);
          if (text) this.endText(text, event.part.annotations, event.part.text, out);
        }
        return;
      case "response.refusal.delta": {
        const item = this.items.get(index);
        if (item) out.push({ type: "refusal-delta", id: `${item.partId}:${event.content_index ?? 0}:refusal`, delta: event.delta ?? "" });
        return;
      }
      case "response.reasoning_summary_part.added": {
        const item = this.items.get(index);
        // Canonical reasoning has one summary stream; later summary parts are separated by a blank line.
        if (item?.type === "reasoning" && item.summaryParts++ > 0) out.push({ type: "reasoning-delta", id: item.partId, delta: "\n\n", kind: "summary" });
        return;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const item = this.items.get(index);
        if (item?.type !== "reasoning") return;
        item.seenDelta = true;
        const kind = event.type === "response.reasoning_text.delta" ? "text" : "summary";
        out.push({ type: "reasoning-delta", id: item.partId, delta: event.delta ?? "", kind });
        return;
      }
      case "response.function_call_arguments.delta": {
        const item = this.items.get(index);
        if (item?.type !== "function_call" || !item.open) return;
        item.seenDelta = true;
        out.push({ type: "tool-call-delta", id: item.partId, delta: event.delta ?? "" });
        return;
      }
      default:
        return;
    }
  }

  /** Ends whatever is still open (a terminal event arrived). */
  closeAll(out: StreamEvent[]): void {
    for (const item of this.items.values()) this.close(item, undefined, out);
  }

  private added(index: number, item: WireOutputItem, out: StreamEvent[]): void {
    const state: ItemState = { type: item.type, partId: item.id ?? `item-${index}`, open: true, seenDelta: false, summaryParts: 0, texts: new Map() };
    if (item.type === "reasoning") {
      const start: StreamEvent = { type: "reasoning-start", id: state.partId, format: reasoningFromItem(item).format ?? "openai-responses-v1" };
      if (item.id !== undefined) start.itemId = item.id;
      out.push(start);
    } else if (item.type === "function_call") {
      const part = toolCallFromItem(item, this.newCallId);
      state.partId = part.id;
      this.sawToolCall = true;
      const start: StreamEvent = { type: "tool-call-start", id: part.id, name: part.name };
      if (part.itemId !== undefined) start.itemId = part.itemId;
      out.push(start);
      // Some upstreams put the whole arguments on the added item.
      if (part.arguments !== "") {
        state.seenDelta = true;
        out.push({ type: "tool-call-delta", id: part.id, delta: part.arguments });
      }
    } else if (item.type === "web_search_call") {
      state.partId = webSearchId(item, this.newCallId);
      // Usually announced bare (`in_progress`, no action): then the call is shown when it is done, with its query.
      if (hasAction(item)) {
        state.announced = true;
        out.push(webSearchStart(item, state.partId));
      }
    } else if (item.type !== "message" && item.type !== "image_generation_call") this.onUnsupported(item.type);
    // An image is shown whole when its item is done (`result`); partial images before that are only previews.
    this.items.set(index, state);
  }

  private done(index: number, item: WireOutputItem, out: StreamEvent[]): void {
    let state = this.items.get(index);
    if (!state) {
      // The upstream never announced this item: start it now so nothing of it is lost.
      this.added(index, { ...item, arguments: "" }, out);
      state = this.items.get(index);
    }
    if (state) this.close(state, item, out);
  }

  private textAt(index: number, event: WireStreamEvent, out: StreamEvent[]): TextState | undefined {
    const item = this.items.get(index);
    return item ? this.textOf(item, event.content_index ?? 0, out) : undefined;
  }

  /** The text state of a message item's content index, started on first sight; keyed by item id + content index. */
  private textOf(item: ItemState, contentIndex: number, out: StreamEvent[]): TextState | undefined {
    if (item.type !== "message" || !item.open) return undefined;
    let text = item.texts.get(contentIndex);
    if (!text) {
      text = { id: `${item.partId}:${contentIndex}`, open: true, annotations: [], seen: false };
      item.texts.set(contentIndex, text);
      out.push({ type: "text-start", id: text.id });
    }
    return text;
  }

  private endText(text: TextState, annotations: unknown[] | undefined, finalText: string | undefined, out: StreamEvent[]): void {
    if (!text.open) return;
    text.open = false;
    // An upstream that sent the text only in the finished part still delivers it.
    if (!text.seen && finalText) out.push({ type: "text-delta", id: text.id, delta: finalText });
    const all = annotations && annotations.length > 0 ? annotations : text.annotations;
    out.push(all.length > 0 ? { type: "text-end", id: text.id, annotations: all } : { type: "text-end", id: text.id });
  }

  private close(state: ItemState, item: WireOutputItem | undefined, out: StreamEvent[]): void {
    if (!state.open) return;
    if (state.type === "message") {
      (item?.content ?? []).forEach((content, contentIndex) => {
        if (content.type !== "output_text") return;
        const text = this.textOf(state, contentIndex, out);
        if (text) this.endText(text, content.annotations, content.text, out);
      });
      for (const text of state.texts.values()) this.endText(text, undefined, undefined, out);
    } else if (state.type === "reasoning") {
      const part = item ? reasoningFromItem(item) : undefined;
      if (part && !state.seenDelta) {
        // No deltas were streamed: the finished item is the only source of the reasoning text.
        if (part.summary?.length) out.push({ type: "reasoning-delta", id: state.partId, delta: part.summary.join("\n\n"), kind: "summary" });
        if (part.text !== "") out.push({ type: "reasoning-delta", id: state.partId, delta: part.text, kind: "text" });
      }
      const end: StreamEvent = { type: "reasoning-end", id: state.partId };
      if (part?.encrypted !== undefined) end.encrypted = part.encrypted;
      if (part?.signature !== undefined) end.signature = part.signature;
      out.push(end);
    } else if (state.type === "function_call") {
      if (!state.seenDelta && item?.arguments) out.push({ type: "tool-call-delta", id: state.partId, delta: item.arguments });
      out.push({ type: "tool-call-end", id: state.partId });
    } else if (state.type === "web_search_call") {
      if (!state.announced) out.push(webSearchStart(item ?? { type: state.type }, state.partId));
      // Cut off before its `done`: no end, so the part stays `incomplete` (as collect() leaves a call never ended).
      if (item) {
        this.webSearches++;
        out.push({ type: "server-tool-end", id: state.partId, ...webSearchOutcome(item) });
      }
    } else if (state.type === "image_generation_call") {
      const image = item ? imageFromItem(item) : undefined;
      if (image !== undefined) out.push({ type: "image", id: state.partId, url: image.url, mediaType: image.mediaType ?? "image/png" });
    }
    state.open = false;
  }
}
