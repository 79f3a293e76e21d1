/**
 * The Responses stream encoder's state (spec "Events"): turns each canonical event into the SSE frames
 * a Responses client expects, owning `sequence_number`, `output_index`, `content_index` and `summary_index`.
 * Consecutive text / refusal parts share one message item, like the result encoder's grouping, and item ids come
 * from the same deterministic scheme, so `response.completed` names exactly the items the events announced.
 */
import { GatewayError } from "../../errors.ts";
import { ResponseBuilder } from "../../model/collect.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { ImagePart, Part, ReasoningPart, ServerToolPart, ToolCallPart } from "../../model/parts.ts";
import type { Cost } from "../../model/usage.ts";
import type { EncodeContext } from "../format.ts";
import { functionCallItem, imageGenerationItem, itemIds, messageItem, outputText, reasoningItem, refusalContent, serverToolItem, summaryAsked, type ItemStatus } from "./output-items.ts";
import { warnAudioDropped } from "./encode.ts";
import { clientSpelling } from "../shared/tool-spelling.ts";
import { inProgressObject, resultObject, terminalStatus } from "./response-object.ts";

interface Content {
  kind: "text" | "refusal";
  index: number;
  text: string;
  logprobs: unknown[];
  annotations?: unknown[];
  open: boolean;
}
interface MessageItem { kind: "message"; outputIndex: number; id: string; contents: Content[]; accepting: boolean; open: boolean }
/** `ownSummary`: the upstream sent summary deltas of its own (reasoning text then stays `reasoning_text`). */
interface ReasoningItem { kind: "reasoning"; outputIndex: number; id: string; part: ReasoningPart; summaryOpen: boolean; summaryText: string; ownSummary: boolean; textOpen: boolean; open: boolean }
interface CallItem { kind: "call"; outputIndex: number; id: string; part: ToolCallPart; open: boolean }
/** A server tool the gateway runs; `part` is the builder's, so it holds the result once the end event arrived. */
interface ServerToolItem { kind: "server-tool"; outputIndex: number; id: string; part: ServerToolPart; open: boolean }
/** A generated image: announced and finished at once (image output arrives whole). */
interface ImageItem { kind: "image"; outputIndex: number; id: string; open: false }
type Item = MessageItem | ReasoningItem | CallItem | ServerToolItem | ImageItem;

/** One SSE frame with the `event:` line OpenAI sends before `data:`. */
function frame(payload: Record<string, unknown>): string {
  return `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Stateful event → frames translator; one per stream. */
export class ResponsesStreamEncoder {
  private readonly builder = new ResponseBuilder();
  private readonly items: Item[] = [];
  /** Canonical part id → where its events go (text and refusal map to a message content). */
  private readonly slots = new Map<string, { item: Item; content?: Content }>();
  private message: MessageItem | undefined;
  private sequence = 0;
  private started = false;
  private cost: Cost | undefined;
  private out: string[] = [];
  /** True once a terminal event (`response.completed` / `incomplete` / `failed`) was written. */
  done = false;
  /** The request asked for reasoning summaries: reasoning text with none of its own is streamed as the summary. */
  private readonly summaryAsked: boolean;

  constructor(private readonly ctx: EncodeContext) {
    this.summaryAsked = summaryAsked(ctx.request);
  }

  /** Frames for one canonical event. */
  handle(event: StreamEvent): string[] {
    this.out = [];
    if (this.done) return this.out;
    const before = this.builder.response.parts.length;
    this.builder.add(event);
    const created: Part | undefined = this.builder.response.parts.length > before ? this.builder.response.parts[before] : undefined;
    if (event.type !== "debug") this.ensureStarted();
    switch (event.type) {
      case "debug":
        this.emit({ type: "response.debug", debug: { echo_upstream_body: event.upstreamBody } });
        break;
      case "start":
      case "finish":
        break;
      case "usage":
        if (event.cost !== undefined) this.cost = event.cost;
        break;
      case "text-start":
      case "text-delta":
      case "refusal-delta":
        this.onContent(event, created);
        break;
      case "text-end":
        this.onTextEnd(event.id, event.annotations);
        break;
      case "reasoning-start":
      case "reasoning-delta":
        this.onReasoning(event, created);
        break;
      case "reasoning-end":
        this.closeSlot(event.id);
        break;
      case "tool-call-start":
        if (created?.type === "tool-call") this.openItem(event.id, "call", created);
        break;
      case "tool-call-delta": {
        const slot = this.slots.get(event.id);
        if (slot?.item.kind === "call") this.emit({ type: "response.function_call_arguments.delta", item_id: slot.item.id, output_index: slot.item.outputIndex, delta: event.delta });
        break;
      }
      case "tool-call-end":
        this.closeSlot(event.id);
        break;
      case "server-tool-start":
        if (created?.type === "server-tool") this.openItem(event.id, "server-tool", created);
        break;
      case "server-tool-progress": {
        // The tool's own phase events (fusion's `response.fusion_call.*`), on its item while it runs.
        const slot = this.slots.get(event.id);
        if (slot?.item.kind === "server-tool") this.emit({ ...event.data, type: `response.${event.event}`, item_id: slot.item.id, output_index: slot.item.outputIndex });
        break;
      }
      case "server-tool-end":
        this.closeSlot(event.id);
        break;
      case "image":
        if (created?.type === "image") this.onImage(created);
        break;
      case "audio":
        // Responses has no audio output item: dropped, with a warning for its first piece (see encode.ts).
        if (created?.type === "audio") warnAudioDropped(this.ctx.request.warnings);
        break;
      case "error":
        this.terminal();
        break;
    }
    return this.out;
  }

  /** Frames that end the stream: open items closed, then the terminal lifecycle event. */
  end(): string[] {
    this.out = [];
    if (this.done) return this.out;
    if (!this.builder.complete) {
      // A canonical stream must end with finish or error; a silent cut becomes an explicit failure.
      this.builder.add({ type: "error", error: new GatewayError("provider_unavailable", "Upstream stream ended before the response completed", { retryable: true }) });
    }
    this.ensureStarted();
    this.terminal();
    return this.out;
  }

  private emit(payload: Record<string, unknown>): void {
    this.out.push(frame({ ...payload, sequence_number: this.sequence++ }));
  }

  private ensureStarted(): void {
    if (this.started) return;
    this.started = true;
    const r = this.builder.response;
    const start = { model: r.model, created: r.created || Math.floor(Date.now() / 1000), ...(r.serviceTier ? { serviceTier: r.serviceTier } : {}) };
    const response = inProgressObject(this.ctx, start);
    this.emit({ type: "response.created", response });
    this.emit({ type: "response.in_progress", response });
  }

  private onContent(event: Extract<StreamEvent, { type: "text-start" | "text-delta" | "refusal-delta" }>, created: Part | undefined): void {
    let slot = this.slots.get(event.id);
    if (!slot || created) {
      const kind = event.type === "refusal-delta" ? "refusal" : "text";
      slot = this.openContent(event.id, kind);
    }
    const { item, content } = slot;
    if (!content || event.type === "text-start") return;
    content.text += event.delta;
    if (event.type === "refusal-delta") {
      this.emit({ type: "response.refusal.delta", item_id: item.id, output_index: item.outputIndex, content_index: content.index, delta: event.delta });
      return;
    }
    const logprobs = event.logprobs ?? [];
    content.logprobs.push(...logprobs);
    this.emit({ type: "response.output_text.delta", item_id: item.id, output_index: item.outputIndex, content_index: content.index, delta: event.delta, logprobs });
  }

  private openContent(partId: string, kind: Content["kind"]): { item: MessageItem; content: Content } {
    let message = this.message;
    if (!message?.accepting) {
      const outputIndex = this.items.length;
      message = { kind: "message", outputIndex, id: itemIds.message(this.ctx.generationId, outputIndex), contents: [], accepting: true, open: true };
      this.items.push(message);
      this.message = message;
      this.emit({ type: "response.output_item.added", output_index: outputIndex, item: messageItem(message.id, [], "in_progress") });
    }
    const content: Content = { kind, index: message.contents.length, text: "", logprobs: [], open: true };
    message.contents.push(content);
    this.slots.set(partId, { item: message, content });
    const part = kind === "text" ? { ...outputText("", []), logprobs: [] } : refusalContent("");
    this.emit({ type: "response.content_part.added", item_id: message.id, output_index: message.outputIndex, content_index: content.index, part });
    return { item: message, content };
  }

  private onTextEnd(partId: string, annotations: unknown[] | undefined): void {
    const slot = this.slots.get(partId);
    this.slots.delete(partId);
    if (!slot?.content || slot.item.kind !== "message") return;
    if (annotations?.length) slot.content.annotations = annotations;
    this.closeContent(slot.item, slot.content);
    if (!slot.item.accepting && slot.item.contents.every((c) => !c.open)) this.closeMessage(slot.item, "completed");
  }

  private closeContent(item: MessageItem, content: Content): void {
    if (!content.open) return;
    content.open = false;
    const at = { item_id: item.id, output_index: item.outputIndex, content_index: content.index };
    if (content.kind === "refusal") {
      this.emit({ type: "response.refusal.done", ...at, refusal: content.text });
      this.emit({ type: "response.content_part.done", ...at, part: refusalContent(content.text) });
      return;
    }
    (content.annotations ?? []).forEach((annotation, index) => {
      this.emit({ type: "response.output_text.annotation.added", ...at, annotation_index: index, annotation });
    });
    this.emit({ type: "response.output_text.done", ...at, text: content.text, logprobs: content.logprobs });
    this.emit({ type: "response.content_part.done", ...at, part: this.contentJson(content) });
  }

  private contentJson(content: Content): Record<string, unknown> {
    if (content.kind === "refusal") return refusalContent(content.text);
    return outputText(content.text, content.annotations, content.logprobs.length > 0 ? content.logprobs : undefined);
  }

  private closeMessage(item: MessageItem, status: ItemStatus): void {
    if (!item.open) return;
    for (const content of item.contents) this.closeContent(item, content);
    item.open = false;
    item.accepting = false;
    const final = messageItem(item.id, item.contents.map((c) => this.contentJson(c)), status);
    this.emit({ type: "response.output_item.done", output_index: item.outputIndex, item: final });
  }

  /** A non-message item starts: the current message stops taking new content (and closes if nothing is open). */
  private interruptMessage(): void {
    const message = this.message;
    if (!message) return;
    message.accepting = false;
    this.message = undefined;
    if (message.contents.every((c) => !c.open)) this.closeMessage(message, "completed");
  }

  private openItem(partId: string, kind: "reasoning" | "call" | "server-tool", part: Part): void {
    this.interruptMessage();
    const outputIndex = this.items.length;
    let item: Item;
    if (kind === "call" && part.type === "tool-call") {
      item = { kind: "call", outputIndex, id: itemIds.functionCall(this.ctx.generationId, outputIndex, part.itemId), part, open: true };
      this.emit({ type: "response.output_item.added", output_index: outputIndex, item: functionCallItem(item.id, { ...part, arguments: "" }, "in_progress") });
    } else if (kind === "server-tool" && part.type === "server-tool") {
      // Announced running with the call only; its result comes with `output_item.done`.
      item = { kind: "server-tool", outputIndex, id: part.id, part, open: true };
      this.emit({ type: "response.output_item.added", output_index: outputIndex, item: serverToolItem(part, true, clientSpelling(this.ctx.request, part.name)) });
    } else if (part.type === "reasoning") {
      item = { kind: "reasoning", outputIndex, id: itemIds.reasoning(this.ctx.generationId, outputIndex, part.id), part, summaryOpen: false, summaryText: "", ownSummary: false, textOpen: false, open: true };
      this.emit({ type: "response.output_item.added", output_index: outputIndex, item: { id: item.id, type: "reasoning", summary: [] } });
    } else return;
    this.items.push(item);
    this.slots.set(partId, { item });
  }

  /**
   * An `image_generation_call` item with OpenAI's lifecycle events. The image arrives whole, so they come in one
   * go: added (in progress), in_progress, generating, completed, done (with the base64 `result`).
   */
  private onImage(part: ImagePart): void {
    this.interruptMessage();
    const outputIndex = this.items.length;
    const item: ImageItem = { kind: "image", outputIndex, id: itemIds.image(this.ctx.generationId, outputIndex), open: false };
    this.items.push(item);
    const at = { item_id: item.id, output_index: outputIndex };
    this.emit({ type: "response.output_item.added", output_index: outputIndex, item: imageGenerationItem(item.id, undefined, "in_progress") });
    this.emit({ type: "response.image_generation_call.in_progress", ...at });
    this.emit({ type: "response.image_generation_call.generating", ...at });
    this.emit({ type: "response.image_generation_call.completed", ...at });
    this.emit({ type: "response.output_item.done", output_index: outputIndex, item: imageGenerationItem(item.id, part, "completed") });
  }

  private onReasoning(event: Extract<StreamEvent, { type: "reasoning-start" | "reasoning-delta" }>, created: Part | undefined): void {
    if (created?.type === "reasoning") this.openItem(event.id, "reasoning", created);
    const slot = this.slots.get(event.id);
    if (event.type === "reasoning-start" || slot?.item.kind !== "reasoning") return;
    const item = slot.item;
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (event.kind === "summary") {
      item.ownSummary = true;
      this.summaryDelta(item, event.delta);
      return;
    }
    // Asked for a summary and given none: the text is the summary (as the finished item shows it), not content too.
    if (this.summaryAsked && !item.ownSummary) {
      this.summaryDelta(item, event.delta);
      return;
    }
    if (!item.textOpen) {
      item.textOpen = true;
      this.emit({ type: "response.content_part.added", ...at, content_index: 0, part: { type: "reasoning_text", text: "" } });
    }
    this.emit({ type: "response.reasoning_text.delta", ...at, content_index: 0, delta: event.delta });
  }

  private summaryDelta(item: ReasoningItem, delta: string): void {
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (!item.summaryOpen) {
      item.summaryOpen = true;
      this.emit({ type: "response.reasoning_summary_part.added", ...at, summary_index: 0, part: { type: "summary_text", text: "" } });
    }
    item.summaryText += delta;
    this.emit({ type: "response.reasoning_summary_text.delta", ...at, summary_index: 0, delta });
  }

  private closeSlot(partId: string): void {
    const slot = this.slots.get(partId);
    this.slots.delete(partId);
    if (slot) this.closeItem(slot.item, "completed");
  }

  private closeItem(item: Item, messageStatus: ItemStatus): void {
    if (!item.open) return;
    if (item.kind === "message") return this.closeMessage(item, messageStatus);
    item.open = false;
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (item.kind === "server-tool") {
      // A tool still running when the response ends is reported `incomplete`, as the result object reports it.
      this.emit({ type: "response.output_item.done", output_index: item.outputIndex, item: serverToolItem(item.part, false, clientSpelling(this.ctx.request, item.part.name)) });
      return;
    }
    if (item.kind === "call") {
      this.emit({ type: "response.function_call_arguments.done", ...at, name: item.part.name, arguments: item.part.arguments });
      this.emit({ type: "response.output_item.done", output_index: item.outputIndex, item: functionCallItem(item.id, item.part, "completed") });
      return;
    }
    if (item.summaryOpen) {
      const part = { type: "summary_text", text: item.summaryText };
      this.emit({ type: "response.reasoning_summary_text.done", ...at, summary_index: 0, text: item.summaryText });
      this.emit({ type: "response.reasoning_summary_part.done", ...at, summary_index: 0, part });
    }
    if (item.textOpen) {
      const text = item.part.text;
      this.emit({ type: "response.reasoning_text.done", ...at, content_index: 0, text });
      this.emit({ type: "response.content_part.done", ...at, content_index: 0, part: { type: "reasoning_text", text } });
    }
    this.emit({ type: "response.output_item.done", output_index: item.outputIndex, item: reasoningItem(item.id, item.part, this.summaryAsked) });
  }

  /** Closes what is open (not after a failure: the failed object reports partial output) and writes the lifecycle end. */
  private terminal(): void {
    const response = this.builder.response;
    const { status, event } = terminalStatus(response);
    if (status !== "failed") {
      const messageStatus: ItemStatus = status === "completed" ? "completed" : "incomplete";
      for (const item of this.items) this.closeItem(item, messageStatus);
    }
    const result = resultObject(response, this.ctx, this.cost ?? response.cost);
    this.emit(status === "failed" ? { type: event, response: result, error_type: response.error?.type } : { type: event, response: result });
    this.done = true;
  }
}
