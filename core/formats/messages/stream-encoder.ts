/**
 * The Messages stream encoder: canonical events → named Messages SSE frames, one event at a time, owning the block
 * indexes (upstream ids never leak into them). ./stream.ts relays a stream through it.
 *
 * Server tools: a call's `server_tool_use` block is shown when it starts, its result block when it ends. The agent
 * loop starts a step's calls together and they end in any order, while the result body keeps each call next to its
 * result; so a call is shown only once every call started before it is done, and the blocks come out in the body's
 * order. One call at a time (the usual case) is shown at its start.
 */
import { toGatewayError } from "../../errors.ts";
import { envelopeOf } from "../../http/envelope.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { ReasoningPart, ServerToolPart } from "../../model/parts.ts";
import type { AlignmentReport, Finish } from "../../model/response.ts";
import { emptyUsage, type Cost, type Usage } from "../../model/usage.ts";
import { warn } from "../../model/warnings.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";
import type { EncodeContext } from "../format.ts";
import { containerField } from "./container-field.ts";
import { signatureFor } from "./reasoning-token.ts";
import { anthropicErrorType, citationsOf, deltaUsageOf, stopDetailsOf, stopReasonOf, stopSequenceOf, toolInputOf, usageOf } from "./result-fields.ts";
import { imageBlockOf } from "./image-block.ts";
import { peerSpelling } from "../shared/tool-spelling.ts";
import { hasResultBlock, serverToolResultBlock, serverToolUseBlock } from "./server-tool-blocks.ts";

/** One named SSE frame; `type` leads the data object as in Anthropic's streams. */
export function messagesFrame(type: string, data: Record<string, unknown> = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

type StartEvent = Extract<StreamEvent, { type: "start" }>;

interface Block {
  index: number;
  kind: "text" | "thinking" | "tool_use" | "server_tool" | "image";
  text: string;
}

/** A server tool call in start order: whether its use block went out, and whether its end event arrived. */
interface ServerCall {
  part: ServerToolPart;
  shown: boolean;
  ended: boolean;
}

interface PendingReasoning {
  format?: string;
  itemId?: string;
  block?: Block;
}

/** Per-stream state: block indexes, the message identity, and the latest usage and finish. */
export class MessagesStreamEncoder {
  private start: StartEvent | undefined;
  private started = false;
  private nextIndex = 0;
  private readonly blocks = new Map<string, Block>();
  private readonly reasoning = new Map<string, PendingReasoning>();
  private usage: Usage = emptyUsage();
  private cost: Cost | undefined;
  private finish: Finish = { reason: "stop" };
  /** The alignment plugin's report, shown on `message_delta`. */
  private alignment: AlignmentReport | undefined;
  private refusal = "";
  /** Server tool calls not yet fully shown, oldest first. */
  private readonly serverCalls: ServerCall[] = [];
  /** Audio outputs already warned about (their pieces share an id). */
  private readonly audioWarned = new Set<string>();

  constructor(private readonly ctx: EncodeContext) {}

  /** Frames for one event; `start` is held until the next event so input usage reported with it is included. */
  *handle(event: StreamEvent): Generator<string> {
    switch (event.type) {
      case "start":
        this.start = event;
        return;
      case "debug":
        yield messagesFrame("debug", { upstream_body: event.upstreamBody });
        return;
      case "usage":
        this.usage = event.usage;
        if (event.cost !== undefined) this.cost = event.cost;
        if (!this.started) yield this.messageStart();
        return;
      case "finish":
        this.finish = event.finish;
        this.alignment = event.alignment;
        return;
      case "error":
        return;
    }
    if (!this.started) yield this.messageStart();
    switch (event.type) {
      case "text-start":
        yield* this.open(event.id, "text", { type: "text", text: "", citations: null });
        return;
      case "text-delta":
      case "refusal-delta": {
        if (!this.blocks.has(event.id)) yield* this.open(event.id, "text", { type: "text", text: "", citations: null });
        const block = this.blocks.get(event.id) as Block;
        block.text += event.delta;
        if (event.type === "refusal-delta") this.refusal += event.delta;
        yield this.delta(block, { type: "text_delta", text: event.delta });
        return;
      }
      case "text-end":
        yield* this.endText(event.id, event.annotations);
        return;
      case "reasoning-start": {
        const pending: PendingReasoning = {};
        if (event.format !== undefined) pending.format = event.format;
        if (event.itemId !== undefined) pending.itemId = event.itemId;
        this.reasoning.set(event.id, pending);
        return;
      }
      case "reasoning-delta": {
        const block = yield* this.openThinking(event.id);
        yield this.delta(block, { type: "thinking_delta", thinking: event.delta });
        return;
      }
      case "reasoning-end":
        yield* this.endReasoning(event);
        return;
      case "tool-call-start":
        yield* this.open(event.id, "tool_use", { type: "tool_use", id: event.id, name: event.name, input: {} });
        return;
      case "tool-call-delta": {
        const block = this.blocks.get(event.id);
        if (block === undefined) return; // as collect(): a delta without its start has nowhere to go
        block.text += event.delta;
        yield this.delta(block, { type: "input_json_delta", partial_json: event.delta });
        return;
      }
      case "tool-call-end": {
        const block = this.blocks.get(event.id);
        if (block && !toolInputOf(block.text).valid) {
          warn(this.ctx.request.warnings, "approximated", `content[${block.index}].input`, `Arguments of tool call ${event.id} were not a JSON object`);
        }
        yield* this.close(event.id);
        return;
      }
      case "image":
        // Whole, in its start frame (an image arrives complete; there is no image delta).
        yield* this.open(event.id, "image", imageBlockOf(event));
        yield* this.close(event.id);
        return;
      case "audio":
        // Messages has no audio block (the result encoder drops audio parts the same way); one warning per audio.
        if (this.audioWarned.has(event.id)) return;
        this.audioWarned.add(event.id);
        warn(this.ctx.request.warnings, "unsupported_field", "content", "Audio output cannot be shown in a Messages result and was dropped");
        return;
      case "server-tool-start": {
        const part: ServerToolPart = { type: "server-tool", id: event.id, callId: event.callId, name: event.name, arguments: event.arguments, status: "incomplete" };
        this.serverCalls.push({ part, shown: false, ended: false });
        yield* this.flushServerCalls();
        return;
      }
      case "server-tool-end": {
        const call = this.serverCalls.find((c) => c.part.id === event.id && !c.ended);
        if (call === undefined) return; // as collect(): an end without its start has nothing to close
        call.ended = true;
        call.part.status = event.status;
        if (event.result !== undefined) call.part.result = event.result;
        if (event.error !== undefined) call.part.error = event.error;
        yield* this.flushServerCalls();
        return;
      }
    }
  }

  /**
   * Shows server calls from the oldest: its use block (once), then, if it ended, its result block, and so on with
   * the next; stops at the first call still running. `final` (the stream's end) shows every call left, without a
   * result for those that never ended, as the result body does.
   */
  private *flushServerCalls(final = false): Generator<string> {
    while (this.serverCalls.length > 0) {
      const call = this.serverCalls[0] as ServerCall;
      if (!call.shown) {
        call.shown = true;
        yield* this.serverToolUse(call.part);
      }
      if (!call.ended && !final) return;
      this.serverCalls.shift();
      if (call.ended && hasResultBlock(call.part)) {
        const key = `${call.part.id}:result`;
        yield* this.open(key, "server_tool", serverToolResultBlock(call.part, peerSpelling(this.ctx.request, call.part.name)));
        yield* this.close(key);
      }
    }
  }

  /** `server_tool_use` with empty input, the whole arguments as one `input_json_delta`, then its stop. */
  private *serverToolUse(part: ServerToolPart): Generator<string> {
    const { block, valid } = serverToolUseBlock(part, peerSpelling(this.ctx.request, part.name));
    const opened = yield* this.open(part.id, "server_tool", { ...block, input: {} });
    if (!valid) warn(this.ctx.request.warnings, "approximated", `content[${opened.index}].input`, `Arguments of server tool call ${part.id} were not a JSON object; sent as {}`);
    // The model's own text when it is an object; otherwise what the result body shows.
    const json = valid && part.arguments.trim() !== "" ? part.arguments : JSON.stringify(block.input);
    yield this.delta(opened, { type: "input_json_delta", partial_json: json });
    yield* this.close(part.id);
  }

  /**
   * The in-band terminal error (error: {type, message, error_type}}`), with the
   * envelope's `code` and `metadata` too, as a non-streamed error on `/messages` has them.
   */
  error(thrown: unknown): string {
    const error = toGatewayError(thrown);
    const internal = error.status >= 500 && (error.type === "server" || error.type === "unmapped");
    const { code, metadata } = envelopeOf(error).error;
    const data: Record<string, unknown> = {
      error: { type: anthropicErrorType(error.type), code, message: internal ? "Internal server error" : error.message, metadata, error_type: error.type },
    };
    const serviceMetadata = internal ? undefined : trailerMetadata(this.ctx.trailer, this.ctx.request.warnings);
    if (serviceMetadata) data.service_metadata = serviceMetadata;
    return messagesFrame("error", data);
  }

  /** Closes whatever is open, then `message_delta` (stop reason, final usage) and `message_stop`. */
  *end(): Generator<string> {
    if (!this.started) yield this.messageStart();
    for (const [id, pending] of this.reasoning) if (pending.block === undefined) yield* this.openThinking(id);
    for (const id of [...this.blocks.keys()]) yield* this.close(id);
    yield* this.flushServerCalls(true);
    const reason = stopReasonOf(this.finish);
    const data: Record<string, unknown> = {
      delta: { stop_reason: reason, stop_sequence: stopSequenceOf(this.finish, reason), stop_details: stopDetailsOf(reason, this.refusal, this.finish.refusal), container: containerField(this.ctx) },
      usage: deltaUsageOf(this.usage, this.cost),
    };
    if (this.alignment) data.alignment = this.alignment;
    const metadata = trailerMetadata(this.ctx.trailer, this.ctx.request.warnings);
    if (metadata) data.service_metadata = metadata;
    yield messagesFrame("message_delta", data);
    yield messagesFrame("message_stop");
  }

  private messageStart(): string {
    this.started = true;
    const start = this.start;
    const message: Record<string, unknown> = {
      id: this.ctx.generationId,
      type: "message",
      role: "assistant",
      model: start?.model ?? this.ctx.request.model ?? "",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: usageOf(this.usage, undefined, start?.serviceTier),
    };
    if (start?.provider) message.provider = start.provider;
    return messagesFrame("message_start", { message });
  }

  private *open(id: string, kind: Block["kind"], contentBlock: Record<string, unknown>): Generator<string, Block> {
    // A reasoning item announced earlier takes its index first, so block order matches collect()'s part order.
    for (const [pendingId, pending] of this.reasoning) if (pending.block === undefined && pendingId !== id) yield* this.openThinking(pendingId);
    const block: Block = { index: this.nextIndex++, kind, text: "" };
    this.blocks.set(id, block);
    yield messagesFrame("content_block_start", { index: block.index, content_block: contentBlock });
    return block;
  }

  private *openThinking(id: string): Generator<string, Block> {
    let pending = this.reasoning.get(id);
    if (pending === undefined) this.reasoning.set(id, (pending = {}));
    if (pending.block !== undefined) return pending.block;
    pending.block = { index: -1, kind: "thinking", text: "" }; // placeholder so open() does not recurse into it
    pending.block = yield* this.open(id, "thinking", { type: "thinking", thinking: "", signature: "" });
    return pending.block;
  }

  private *endText(id: string, annotations: unknown[] | undefined): Generator<string> {
    const block = this.blocks.get(id);
    if (block === undefined) return;
    const { citations, dropped } = citationsOf(annotations, block.text);
    if (dropped > 0) warn(this.ctx.request.warnings, "unsupported_field", `content[${block.index}].citations`, `${dropped} annotation(s) with no Messages citation shape were dropped`);
    for (const citation of citations ?? []) yield this.delta(block, { type: "citations_delta", citation });
    yield* this.close(id);
  }

  private *endReasoning(event: Extract<StreamEvent, { type: "reasoning-end" }>): Generator<string> {
    const pending = this.reasoning.get(event.id) ?? {};
    const part: ReasoningPart = { type: "reasoning", text: "" };
    if (pending.format !== undefined) part.format = pending.format;
    if (pending.itemId !== undefined) part.id = pending.itemId;
    if (event.signature !== undefined) part.signature = event.signature;
    if (event.encrypted !== undefined) part.encrypted = event.encrypted;
    if (pending.block === undefined && event.redacted !== undefined) {
      // Redacted thinking is one opaque block with no deltas, as Anthropic streams it.
      this.reasoning.delete(event.id);
      yield* this.open(event.id, "thinking", { type: "redacted_thinking", data: event.redacted });
      yield* this.close(event.id);
      return;
    }
    const block = yield* this.openThinking(event.id);
    const signature = signatureFor(part);
    if (signature !== undefined) yield this.delta(block, { type: "signature_delta", signature });
    this.reasoning.delete(event.id);
    yield* this.close(event.id);
  }

  private delta(block: Block, delta: Record<string, unknown>): string {
    return messagesFrame("content_block_delta", { index: block.index, delta });
  }

  private *close(id: string): Generator<string> {
    const block = this.blocks.get(id);
    if (block === undefined) return;
    this.blocks.delete(id);
    yield messagesFrame("content_block_stop", { index: block.index });
  }
}
