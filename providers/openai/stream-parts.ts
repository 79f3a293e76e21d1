/**
 * Chat-completions deltas → canonical part events (start / delta / end keyed by id); generated
 * images (`delta.images`, OpenRouter-style image output) become whole `image` events.
 * One block is open at a time: switching between reasoning, text and a tool call closes the previous block, so
 * encoders that need sequential blocks (Messages) get them. OpenAI and the compatible servers stream parallel tool
 * calls one after another (index 0 complete, then index 1), which this relies on.
 */
import type { StreamEvent } from "../../core/sdk/index.ts";
import { mediaTypeOf } from "../../core/sdk/provider.ts";
import { audioPieceOf } from "./audio.ts";
import type { WireMessageOut, WireReasoningDetail, WireToolCallOut } from "./wire.ts";

type Block =
  | { kind: "text"; id: string }
  | { kind: "reasoning"; id: string; key: string; signature?: string; encrypted?: string }
  | { kind: "tool"; id: string; key: number }
  | { kind: "refusal"; id: string };

/** Stream-local identities: text and reasoning ids only key events, tool-call ids are the upstream call ids. */
export interface PartIds {
  /** Makes an id for a tool call whose upstream sent none. */
  toolCallId(): string;
  /** A fragment arrived for a tool call already closed (an upstream interleaving calls). */
  onLateToolDelta?(index: number): void;
}

/** Tracks the open block across chunks and turns each delta into events. */
export class PartTracker {
  private open: Block | undefined;
  private texts = 0;
  private reasonings = 0;
  private refusals = 0;
  private images = 0;
  /** Tool calls by upstream `index` → their call id; `closed` once another block opened. */
  private readonly calls = new Map<number, { id: string; closed: boolean }>();

  constructor(private readonly ids: PartIds) {}

  /** Events for one delta, in canonical order: reasoning, text, refusal, tool calls. */
  delta(delta: WireMessageOut, logprobs: unknown[] | undefined): StreamEvent[] {
    const out: StreamEvent[] = [];
    // Read without `?? []`: this runs once per chunk of every stream, and an empty array each time adds up.
    const details = delta.reasoning_details;
    if (details !== undefined && details !== null && details.length > 0) {
      for (const detail of details) this.reasoningDetail(detail, out);
    } else {
      // OpenRouter repeats detail text in `reasoning`; only use it when no details came with it.
      const text = delta.reasoning ?? delta.reasoning_content;
      if (typeof text === "string" && text !== "") {
        this.reasoningBlock("plain", undefined, out);
        out.push({ type: "reasoning-delta", id: this.openId(), delta: text });
      }
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      if (this.open?.kind !== "text") {
        this.close(out);
        this.open = { kind: "text", id: `text_${this.texts++}` };
        out.push({ type: "text-start", id: this.open.id });
      }
      out.push(logprobs?.length ? { type: "text-delta", id: this.open.id, delta: delta.content, logprobs } : { type: "text-delta", id: this.open.id, delta: delta.content });
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      if (this.open?.kind !== "refusal") {
        this.close(out);
        this.open = { kind: "refusal", id: `refusal_${this.refusals++}` };
      }
      out.push({ type: "refusal-delta", id: this.open.id, delta: delta.refusal });
    }
    const calls = delta.tool_calls;
    if (calls !== undefined && calls !== null) calls.forEach((call, position) => this.toolCall(call, position, out));
    const images = delta.images;
    if (images !== undefined && images !== null) for (const image of images) {
      const url = image?.image_url?.url;
      if (typeof url !== "string" || url === "") continue;
      // An image is a block of its own: text after it starts a new part, as it does after a tool call.
      this.close(out);
      const mediaType = mediaTypeOf(url);
      out.push(mediaType === undefined ? { type: "image", id: `image_${this.images++}`, url } : { type: "image", id: `image_${this.images++}`, url, mediaType });
    }
    // Audio pieces need no block of their own: they append to the message's one audio, whatever else is open.
    const audio = audioPieceOf(delta.audio, "audio_0");
    if (audio !== undefined) out.push(audio);
    return out;
  }

  /** Closes whatever is open (before finish, or before an error ends the stream cleanly). */
  close(out: StreamEvent[]): void {
    const block = this.open;
    this.open = undefined;
    if (block === undefined) return;
    switch (block.kind) {
      case "text":
        out.push({ type: "text-end", id: block.id });
        return;
      case "reasoning": {
        const end: Extract<StreamEvent, { type: "reasoning-end" }> = { type: "reasoning-end", id: block.id };
        if (block.signature !== undefined) end.signature = block.signature;
        if (block.encrypted !== undefined) end.encrypted = block.encrypted;
        out.push(end);
        return;
      }
      case "tool": {
        const entry = this.calls.get(block.key);
        if (entry) entry.closed = true;
        out.push({ type: "tool-call-end", id: block.id });
        return;
      }
      case "refusal":
        // Refusals have no start/end events in the canonical stream.
        return;
    }
  }

  private reasoningDetail(detail: WireReasoningDetail, out: StreamEvent[]): void {
    const key = `detail_${detail.index ?? 0}`;
    this.reasoningBlock(key, detail, out);
    const block = this.open;
    if (block?.kind !== "reasoning") return;
    if (typeof detail.text === "string" && detail.text !== "") out.push({ type: "reasoning-delta", id: block.id, delta: detail.text });
    if (typeof detail.summary === "string" && detail.summary !== "") {
      out.push({ type: "reasoning-delta", id: block.id, delta: detail.summary, kind: "summary" });
    }
    // Signatures and encrypted blobs are opaque: they are carried whole on reasoning-end.
    if (typeof detail.signature === "string") block.signature = (block.signature ?? "") + detail.signature;
    if (typeof detail.data === "string") block.encrypted = (block.encrypted ?? "") + detail.data;
  }

  private reasoningBlock(key: string, first: WireReasoningDetail | undefined, out: StreamEvent[]): void {
    if (this.open?.kind === "reasoning" && this.open.key === key) return;
    this.close(out);
    const id = `reasoning_${this.reasonings++}`;
    this.open = { kind: "reasoning", id, key };
    const start: Extract<StreamEvent, { type: "reasoning-start" }> = { type: "reasoning-start", id };
    if (typeof first?.id === "string") start.itemId = first.id;
    if (typeof first?.format === "string") start.format = first.format;
    out.push(start);
  }

  private toolCall(call: WireToolCallOut, position: number, out: StreamEvent[]): void {
    const index = call.index ?? position;
    let entry = this.calls.get(index);
    // Some servers reuse index 0 for every call; a different id means a new call.
    if (entry !== undefined && typeof call.id === "string" && call.id !== "" && call.id !== entry.id) entry = undefined;
    if (entry === undefined) {
      this.close(out);
      entry = { id: typeof call.id === "string" && call.id !== "" ? call.id : this.ids.toolCallId(), closed: false };
      this.calls.set(index, entry);
      this.open = { kind: "tool", id: entry.id, key: index };
      out.push({ type: "tool-call-start", id: entry.id, name: call.function?.name ?? "" });
    } else if (entry.closed) {
      this.ids.onLateToolDelta?.(index);
      return;
    }
    const args = call.function?.arguments;
    if (typeof args === "string" && args !== "") out.push({ type: "tool-call-delta", id: entry.id, delta: args });
  }

  private openId(): string {
    return this.open?.id ?? "";
  }
}
