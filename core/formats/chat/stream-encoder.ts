/**
 * Canonical events → `chat.completion.chunk` objects, one event at a time (the stream encoder owns
 * chat's `tool_calls[].index`, `server_tool_calls[].index` and `reasoning_details[].index` counters). Kept free of
 * SSE framing so it is easy to test and reuse.
 */
import type { EncodeContext } from "../format.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { AlignmentReport, Finish } from "../../model/response.ts";
import { emptyUsage, type Cost, type Usage } from "../../model/usage.ts";
import { chatAnnotations } from "./annotations.ts";
import { chatAudio } from "./encode.ts";
import type { ChatChunk, ChatDelta } from "./chunk.ts";
import { chatError } from "./error.ts";
import { chatFinishReason, nativeFinishReason } from "./finish.ts";
import { detailCommon, type ReasoningDetailOut } from "./reasoning-details.ts";
import { peerSpelling } from "../shared/tool-spelling.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";
import { serverToolEndDelta, serverToolStartDelta } from "./server-tool-calls.ts";
import { chatUsage } from "./usage.ts";

/** Characters JSON.stringify writes escaped (surrogates too: a lone one is escaped, so none take the short way). */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Per reasoning part: its upstream id/format and the detail indexes assigned to its text and summary items. */
interface ReasoningState {
  id?: string;
  format?: string;
  textIndex?: number;
  summaryIndex?: number;
}

/** Stateful translator for one response stream. */
export class ChatStreamEncoder {
  /** True once the in-band error chunk was produced: nothing but `[DONE]` may follow. */
  done = false;
  private created = 0;
  private model: string;
  private provider = "";
  private serviceTier: string | null = null;
  private roleSent = false;
  private metadataSent = false;
  private readonly toolIndexes = new Map<string, number>();
  /** Images sent so far (the next one's `index`). */
  private images = 0;
  /** Server tools by event id: their index, tool name, and whether they still run (closed by their end event). */
  private readonly serverTools = new Map<string, { index: number; name: string; running: boolean }>();
  /** Length of the `content` sent so far, and where each text part began in it (citation indexes shift by it). */
  private contentLength = 0;
  private readonly textStarts = new Map<string, number>();
  private readonly reasoning = new Map<string, ReasoningState>();
  private detailCount = 0;
  private usage: Usage = emptyUsage();
  private cost: Cost | undefined;
  private alignment: AlignmentReport | undefined;
  /** The JSON of a plain text chunk up to its `content` value, built once per stream identity (see `textChunkJson`). */
  private textPrefix: string | undefined;

  constructor(private readonly ctx: EncodeContext) {
    // Until `start` names the served model, the requested one is the best identity a chunk can carry.
    this.model = ctx.request.model ?? "";
  }

  /** Chunks for one event (often one, sometimes none: `text-start`, `usage`… have no chat frame of their own). */
  handle(event: StreamEvent): ChatChunk[] {
    switch (event.type) {
      case "start":
        this.created = event.created;
        this.model = event.model;
        this.provider = event.provider;
        this.serviceTier = event.serviceTier ?? null;
        this.textPrefix = undefined;
        return [this.choiceChunk({})];
      case "text-start":
        this.textStarts.set(event.id, this.contentLength);
        return [];
      case "tool-call-end":
        return [];
      case "text-delta": {
        if (!this.textStarts.has(event.id)) this.textStarts.set(event.id, this.contentLength);
        this.contentLength += event.delta.length;
        if (event.delta === "" && !event.logprobs?.length) return [];
        const chunk = this.choiceChunk({ content: event.delta });
        const choice = chunk.choices[0];
        if (choice && event.logprobs?.length) choice.logprobs = { content: event.logprobs, refusal: null };
        return [chunk];
      }
      case "text-end": {
        const offset = this.textStarts.get(event.id) ?? this.contentLength;
        this.textStarts.delete(event.id);
        return event.annotations?.length ? [this.choiceChunk({ annotations: chatAnnotations(event.annotations, offset) })] : [];
      }
      case "reasoning-start":
        this.reasoning.set(event.id, { id: event.itemId, format: event.format });
        return [];
      case "reasoning-delta":
        return event.delta === "" ? [] : [this.reasoningDelta(event.id, event.delta, event.kind ?? "text")];
      case "reasoning-end":
        return this.reasoningEnd(event);
      case "tool-call-start": {
        const index = this.toolIndexes.size;
        this.toolIndexes.set(event.id, index);
        const call = { index, id: event.id, type: "function" as const, function: { name: event.name, arguments: "" } };
        return [this.choiceChunk({ tool_calls: [call] })];
      }
      case "tool-call-delta": {
        const index = this.toolIndexes.get(event.id);
        // A delta for a call that never started has no name to show; collect() drops it too.
        if (index === undefined || event.delta === "") return [];
        return [this.choiceChunk({ tool_calls: [{ index, function: { arguments: event.delta } }] })];
      }
      case "refusal-delta":
        return event.delta === "" ? [] : [this.choiceChunk({ refusal: event.delta })];
      case "image":
        return [this.choiceChunk({ images: [{ type: "image_url", image_url: { url: event.url }, index: this.images++ }] })];
      case "audio": {
        const audio = chatAudio({ ...event, id: event.audioId });
        return Object.keys(audio).length === 0 ? [] : [this.choiceChunk({ audio })];
      }
      case "server-tool-start": {
        const index = this.serverTools.size;
        const name = peerSpelling(this.ctx.request, event.name) ?? event.name;
        this.serverTools.set(event.id, { index, name, running: true });
        return [this.choiceChunk({ server_tool_calls: [serverToolStartDelta(index, { ...event, name })] })];
      }
      case "server-tool-end": {
        const tool = this.serverTools.get(event.id);
        // An end without its start has no call to close; collect() drops it too.
        if (tool === undefined || !tool.running) return [];
        tool.running = false;
        return [this.choiceChunk({ server_tool_calls: [serverToolEndDelta(tool.index, tool.name, event)] })];
      }
      case "server-tool-progress":
        // Chat has no frame for a tool's inner phases: its start and end (with the whole result) are the progress.
        return [];
      case "usage":
        // Held back: chat reports the final usage on the finish chunk, or in its own chunk after it (include_usage).
        this.usage = event.usage;
        this.cost = event.cost;
        return [];
      case "finish": {
        const closing = this.closeServerTools();
        const chunk = this.choiceChunk({}, event.finish);
        this.alignment = event.alignment;
        // The alignment report rides the last data chunk: this one, or the usage chunk that follows it.
        if (!this.ctx.request.includeUsage) {
          // Usage always comes (as OpenRouter sends it): without include_usage on the finish chunk itself, since
          // older clients index into `choices[0]` of every chunk and would trip on an empty-`choices` one. The
          // canonical stream's usage precedes its finish, so this is the final usage.
          chunk.usage = chatUsage(this.usage, this.cost);
          if (event.alignment) chunk.alignment = event.alignment;
          this.attachMetadata(chunk);
        }
        return [...closing, chunk];
      }
      case "error": {
        this.done = true;
        const chunk = this.choiceChunk({}, { reason: "error", raw: "error" });
        chunk.error = chatError(event.error);
        this.attachMetadata(chunk);
        return [chunk];
      }
      case "debug": {
        const chunk = this.chunk([]);
        chunk.debug = { echo_upstream_body: event.upstreamBody };
        return [chunk];
      }
    }
  }

  /**
   * The JSON of the chunk a plain text delta makes (the role already sent, no logprobs, some text), written from a
   * prefix built once per stream instead of an object serialised per chunk: most of a long stream's frames are these,
   * and the bytes are exactly `JSON.stringify` of what `handle` returns for the same event (the stream-encoder test
   * compares both). Undefined for any other event, which then goes through `handle`.
   */
  textChunkJson(event: StreamEvent): string | undefined {
    if (event.type !== "text-delta" || !this.roleSent || event.delta === "" || event.logprobs?.length) return undefined;
    if (!this.textStarts.has(event.id)) this.textStarts.set(event.id, this.contentLength);
    this.contentLength += event.delta.length;
    this.textPrefix ??= `${JSON.stringify(this.chunk([])).slice(0, -3)}[{"index":0,"delta":{"content":`;
    // Text JSON writes as it is (no quote, backslash, control character or surrogate) needs no JSON.stringify.
    const text = NEEDS_ESCAPING.test(event.delta) ? JSON.stringify(event.delta) : `"${event.delta}"`;
    return `${this.textPrefix}${text}},"logprobs":null,"finish_reason":null,"native_finish_reason":null}]}`;
  }

  /** Chunks due when the event stream is over: the separate usage chunk when `stream_options.include_usage` asked for it. */
  end(): ChatChunk[] {
    if (this.done || !this.ctx.request.includeUsage) return [];
    const chunk = this.chunk([]);
    chunk.usage = chatUsage(this.usage, this.cost);
    if (this.alignment) chunk.alignment = this.alignment;
    this.attachMetadata(chunk);
    return [chunk];
  }

  /**
   * Server tools still running at the finish never will finish: they are closed `incomplete`, which is what the
   * non-streamed result shows for them, so a client's merged message matches it.
   */
  private closeServerTools(): ChatChunk[] {
    const open = [...this.serverTools.entries()].filter(([, tool]) => tool.running);
    if (open.length === 0) return [];
    const deltas = open.map(([id, tool]) => {
      tool.running = false;
      return serverToolEndDelta(tool.index, tool.name, { id, status: "incomplete" });
    });
    return [this.choiceChunk({ server_tool_calls: deltas })];
  }

  /** A chunk with the stream's identity fields, built in one object literal (no spread copy per chunk). */
  private chunk(choices: ChatChunk["choices"]): ChatChunk {
    return {
      id: this.ctx.generationId,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      provider: this.provider,
      service_tier: this.serviceTier,
      choices,
    };
  }

  /** A chunk with choice 0; the first such chunk also announces `role: assistant`. */
  private choiceChunk(delta: ChatDelta, finish?: Finish): ChatChunk {
    const full: ChatDelta = this.roleSent ? delta : { role: "assistant", ...delta };
    this.roleSent = true;
    const choice = {
      index: 0 as const,
      delta: full,
      logprobs: null,
      finish_reason: finish ? chatFinishReason(finish) : null,
      native_finish_reason: finish ? nativeFinishReason(finish) : null,
    };
    return this.chunk([choice]);
  }

  /** `service_metadata` goes on the final chunk only, from the trailer the edge settled as the stream closed. */
  private attachMetadata(chunk: ChatChunk): void {
    if (this.metadataSent) return;
    const metadata = trailerMetadata(this.ctx.trailer, this.ctx.request.warnings);
    if (metadata === undefined) return;
    chunk.service_metadata = metadata;
    this.metadataSent = true;
  }

  private stateOf(id: string): ReasoningState {
    let state = this.reasoning.get(id);
    if (!state) this.reasoning.set(id, (state = {}));
    return state;
  }

  private reasoningDelta(id: string, delta: string, kind: "text" | "summary"): ChatChunk {
    const state = this.stateOf(id);
    let detail: ReasoningDetailOut;
    if (kind === "summary") {
      state.summaryIndex ??= this.detailCount++;
      detail = { type: "reasoning.summary", summary: delta, ...detailCommon(state, state.summaryIndex) };
    } else {
      state.textIndex ??= this.detailCount++;
      detail = { type: "reasoning.text", text: delta, ...detailCommon(state, state.textIndex) };
    }
    return this.choiceChunk({ reasoning: delta, reasoning_details: [detail] });
  }

  /** Signature and opaque data arrive at the end of a reasoning part, as detail items without reasoning text. */
  private reasoningEnd(event: Extract<StreamEvent, { type: "reasoning-end" }>): ChatChunk[] {
    const state = this.stateOf(event.id);
    this.reasoning.delete(event.id);
    const details: ReasoningDetailOut[] = [];
    if (event.signature !== undefined) {
      state.textIndex ??= this.detailCount++;
      const common = detailCommon(state, state.textIndex);
      details.push({ type: "reasoning.text", text: "", signature: event.signature, ...common });
    }
    for (const data of [event.encrypted, event.redacted]) {
      if (data === undefined) continue;
      details.push({ type: "reasoning.encrypted", data, ...detailCommon(state, this.detailCount++) });
    }
    return details.length > 0 ? [this.choiceChunk({ reasoning_details: details })] : [];
  }
}
