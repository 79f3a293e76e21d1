/**
 * ConverseStream events → canonical stream events. Text and reasoning blocks open with their first delta (Converse
 * sends no start for them), a tool-use block with its `contentBlockStart`; `contentBlockStop` closes a block (a
 * reasoning block with the signature or redacted content its deltas carried); `messageStop` brings the stop reason and
 * `metadata`, after it, the usage, whereupon the finish goes out. An exception frame (`throttlingException`,
 * `modelStreamErrorException`, `validationException`, `internalServerException`, `serviceUnavailableException`) is the
 * stream's in-band error — before any output the pipeline then falls back to the next endpoint, after output it never
 * re-sends. A stream cut before `messageStop`, or garbled, ends in an error, never a silent truncation.
 */
import type { ProviderCall, StreamEvent } from "../../core/sdk/index.ts";
import { ANTHROPIC_REASONING_FORMAT, isPlainObject, streamInterrupted, streamReadFailure } from "../../core/sdk/provider.ts";
import type { BedrockEndpoint } from "./endpoint.ts";
import { bedrockError, streamExceptionError } from "./errors.ts";
import { FramingError, type StreamMessage } from "./event-stream.ts";
import { mapStopReason, mapUsage } from "./finish-usage.ts";
import { reasoningFormat } from "./models.ts";
import { jsonAnswerTool } from "./output.ts";
import type { WireDelta, WireStreamPayload } from "./wire.ts";

interface OpenBlock {
  /** `answer`: the JSON-answer tool's input, relayed as text (./output.ts). */
  kind: "text" | "reasoning" | "tool" | "answer";
  id: string;
  signature?: string;
  redacted?: string;
  annotations?: unknown[];
}

/** Per-stream translation state. */
class ConverseStreamState {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly format: string;
  private readonly answerTool: string | undefined;
  private toolCalls = 0;
  private answered = false;
  started = false;
  stopReason: string | undefined;

  constructor(
    private readonly call: ProviderCall,
    endpoint: BedrockEndpoint,
    private readonly requestId: string | null,
  ) {
    this.format = reasoningFormat(endpoint.traits, ANTHROPIC_REASONING_FORMAT);
    this.answerTool = jsonAnswerTool(call.request, endpoint.traits);
  }

  start(): StreamEvent {
    this.started = true;
    return {
      type: "start",
      id: this.requestId ?? this.call.helpers.id("gen-"),
      model: this.call.target.upstreamModel,
      provider: this.call.target.providerId,
      created: Math.floor(this.call.helpers.now() / 1000),
    };
  }

  *blockStart(payload: WireStreamPayload): Generator<StreamEvent> {
    const index = payload.contentBlockIndex ?? 0;
    const toolUse = payload.start?.toolUse;
    if (toolUse === undefined || this.blocks.has(index)) return;
    if (this.answerTool !== undefined && toolUse.name === this.answerTool) {
      const id = `text-${index}`;
      this.answered = true;
      this.blocks.set(index, { kind: "answer", id });
      yield { type: "text-start", id };
      return;
    }
    const id = toolUse.toolUseId || `tooluse_${index}`;
    this.toolCalls++;
    this.blocks.set(index, { kind: "tool", id });
    yield { type: "tool-call-start", id, name: toolUse.name ?? "" };
  }

  *blockDelta(payload: WireStreamPayload): Generator<StreamEvent> {
    const index = payload.contentBlockIndex ?? 0;
    const delta: WireDelta = payload.delta ?? {};
    let block = this.blocks.get(index);
    if (typeof delta.text === "string") {
      if (block === undefined) block = yield* this.open(index, "text");
      if (block.kind === "text" && delta.text !== "") yield { type: "text-delta", id: block.id, delta: delta.text };
      return;
    }
    if (delta.reasoningContent !== undefined) {
      if (block === undefined) block = yield* this.open(index, "reasoning");
      if (block.kind !== "reasoning") return;
      const { text, signature, redactedContent } = delta.reasoningContent;
      if (typeof text === "string" && text !== "") yield { type: "reasoning-delta", id: block.id, delta: text };
      if (typeof signature === "string") block.signature = signature;
      if (typeof redactedContent === "string") block.redacted = (block.redacted ?? "") + redactedContent;
      return;
    }
    if (delta.toolUse !== undefined && block !== undefined) {
      const input = delta.toolUse.input;
      if (typeof input !== "string" || input === "") return;
      if (block.kind === "tool") yield { type: "tool-call-delta", id: block.id, delta: input };
      else if (block.kind === "answer") yield { type: "text-delta", id: block.id, delta: input };
      return;
    }
    if (delta.citation !== undefined && block?.kind === "text") (block.annotations ??= []).push(delta.citation);
  }

  private *open(index: number, kind: "text" | "reasoning"): Generator<StreamEvent, OpenBlock> {
    const block: OpenBlock = { kind, id: `${kind}-${index}` };
    this.blocks.set(index, block);
    yield kind === "text" ? { type: "text-start", id: block.id } : { type: "reasoning-start", id: block.id, format: this.format };
    return block;
  }

  *blockStop(payload: WireStreamPayload): Generator<StreamEvent> {
    const index = payload.contentBlockIndex ?? 0;
    const block = this.blocks.get(index);
    if (block === undefined) return;
    this.blocks.delete(index);
    yield* this.close(block);
  }

  private *close(block: OpenBlock): Generator<StreamEvent> {
    switch (block.kind) {
      case "text":
        yield block.annotations ? { type: "text-end", id: block.id, annotations: block.annotations } : { type: "text-end", id: block.id };
        return;
      case "answer":
        yield { type: "text-end", id: block.id };
        return;
      case "reasoning": {
        const end: Extract<StreamEvent, { type: "reasoning-end" }> = { type: "reasoning-end", id: block.id };
        if (block.redacted !== undefined) end.redacted = block.redacted;
        else if (block.signature !== undefined) end.signature = block.signature;
        yield end;
        return;
      }
      case "tool":
        yield { type: "tool-call-end", id: block.id };
        return;
    }
  }

  /** Blocks Bedrock left open when the message stopped are closed before the finish. */
  *closeAll(): Generator<StreamEvent> {
    for (const block of this.blocks.values()) yield* this.close(block);
    this.blocks.clear();
  }

  finish(): StreamEvent {
    return { type: "finish", finish: mapStopReason(this.stopReason, this.answered && this.toolCalls === 0) };
  }
}

/** Translates one ConverseStream. A client abort is rethrown; other failures end in `error`. */
export async function* converseStreamToEvents(
  messages: AsyncIterable<StreamMessage>,
  call: ProviderCall,
  endpoint: BedrockEndpoint,
  requestId: string | null,
  /** Takes the call's secrets out of an exception's payload before it becomes an error. */
  redact: (payload: unknown) => unknown = (payload) => payload,
): AsyncGenerator<StreamEvent, void, undefined> {
  const state = new ConverseStreamState(call, endpoint, requestId);
  let stopped = false;
  try {
    for await (const message of messages) {
      if (!state.started) yield state.start();
      if (message.messageType === "exception") {
        yield { type: "error", error: streamExceptionError(message.name, redact(message.payload), call.helpers.error) };
        return;
      }
      if (message.messageType === "error") {
        yield { type: "error", error: bedrockError(message.name || undefined, 502, redact(message.payload), new Headers(), call.helpers.error) };
        return;
      }
      if (!isPlainObject(message.payload)) {
        yield { type: "error", error: streamInterrupted(call, "Upstream stream sent malformed data") };
        return;
      }
      const payload = message.payload as WireStreamPayload;
      switch (message.name) {
        case "contentBlockStart":
          yield* state.blockStart(payload);
          break;
        case "contentBlockDelta":
          yield* state.blockDelta(payload);
          break;
        case "contentBlockStop":
          yield* state.blockStop(payload);
          break;
        case "messageStop":
          stopped = true;
          state.stopReason = payload.stopReason;
          yield* state.closeAll();
          break;
        case "metadata":
          if (payload.usage !== undefined) yield { type: "usage", usage: mapUsage(payload.usage) };
          if (stopped) {
            // The last event of a ConverseStream: the answer is complete.
            yield state.finish();
            return;
          }
          break;
        default:
          // messageStart, and members newer than this adapter: nothing to relay.
          break;
      }
    }
  } catch (thrown) {
    const failure = thrown instanceof FramingError ? streamInterrupted(call, "Upstream stream sent malformed event-stream data") : streamReadFailure(call, thrown);
    if (!state.started) yield state.start();
    yield { type: "error", error: failure };
    return;
  }
  if (!state.started) yield state.start();
  if (stopped) yield state.finish();
  else yield { type: "error", error: streamInterrupted(call, "Upstream stream ended before messageStop") };
}
