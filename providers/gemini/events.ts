/**
 * Gemini responses (a whole reply or streamed chunks) → canonical events. One translator serves both paths, so a
 * non-streamed reply is exactly `collect()` of the same events.
 *
 * Gemini's parts: text, `thought: true` text (reasoning summaries), generated images and audio (`inlineData`,
 * ./media.ts) and `functionCall` (no call id: stable ids `call_<n>` are made up). A `thoughtSignature` may sit on
 * any part; it becomes a Gemini reasoning part placed right before the part that carried it (or on the thoughts
 * just before it), so `contents.ts` can put it back on the same part next turn. A signature on the continuation of
 * a text answer is kept for the end of the turn.
 */
import type { Finish, FinishReason, ProviderCall, StreamEvent, Usage, Warning } from "../../core/sdk/index.ts";
import { warnUnsupported } from "../../core/sdk/provider.ts";
import { GEMINI_REASONING_FORMAT } from "./contents.ts";
import { mediaEvent } from "./media.ts";
import type { GeminiPart, GeminiResponse, GeminiUsage } from "./wire.ts";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/** `finishReason` → unified finish (raw kept); STOP after function calls is a tool-call finish. */
export function mapFinishReason(raw: string, sawCall: boolean): Finish {
  let reason: FinishReason = "other";
  if (raw === "STOP") reason = sawCall ? "tool_calls" : "stop";
  else if (raw === "MAX_TOKENS") reason = "length";
  else if (FILTERED.has(raw)) reason = "content_filter";
  return { reason, raw };
}

/** `usageMetadata` → canonical usage: prompt includes cached tokens; output includes thoughts. */
export function mapGeminiUsage(u: GeminiUsage): Usage {
  const thoughts = u.thoughtsTokenCount ?? 0;
  return {
    input: { total: (u.promptTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0), cacheRead: u.cachedContentTokenCount ?? 0, cacheWrite: 0 },
    output: { total: (u.candidatesTokenCount ?? 0) + thoughts, reasoning: thoughts },
    raw: u,
  };
}

/** The prompt's side of a usage report, with no output counted yet. */
function promptOnly(usage: Usage): Usage {
  return { input: usage.input, output: { total: 0, reasoning: 0 } };
}

interface OpenBlock {
  kind: "text" | "reasoning";
  id: string;
  signature?: string;
}

/** Stateful translator: feed chunks with `chunk()`, then call `end()` once. */
export class GeminiTranslator {
  private started = false;
  private open: OpenBlock | undefined;
  private blocks = 0;
  private calls = 0;
  private sawCall = false;
  private trailingSignature: string | undefined;
  private finishRaw: string | undefined;
  private blockReason: string | undefined;
  private usage: Usage | undefined;

  constructor(private readonly call: ProviderCall) {}

  /** `start` once, from the first chunk (or none). */
  *begin(chunk: GeminiResponse | undefined): Generator<StreamEvent> {
    if (this.started) return;
    this.started = true;
    yield {
      type: "start",
      id: chunk?.responseId ?? "",
      model: chunk?.modelVersion ?? this.call.target.upstreamModel,
      provider: this.call.target.providerId,
      created: Math.floor(this.call.helpers.now() / 1000),
    };
  }

  /** Whether a finish reason (or a prompt block) has been seen. */
  get finished(): boolean {
    return this.finishRaw !== undefined || this.blockReason !== undefined;
  }

  *chunk(chunk: GeminiResponse): Generator<StreamEvent> {
    const first = !this.started;
    yield* this.begin(chunk);
    if (chunk.usageMetadata) this.usage = mapGeminiUsage(chunk.usageMetadata);
    // Gemini counts the prompt on its first chunk: reported at once (a Messages client reads its input tokens from
    // message_start); the usage at the end supersedes it.
    if (first && this.usage !== undefined && this.usage.input.total > 0) yield { type: "usage", usage: promptOnly(this.usage) };
    if (chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) yield* this.part(part);
    if (candidate?.finishReason) this.finishRaw = candidate.finishReason;
  }

  /** Closes what is open, then usage and finish. */
  *end(): Generator<StreamEvent> {
    yield* this.begin(undefined);
    yield* this.close();
    if (this.trailingSignature !== undefined) yield* this.signatureOnly(this.trailingSignature);
    if (this.usage !== undefined) yield { type: "usage", usage: this.usage };
    const finish: Finish =
      this.finishRaw !== undefined
        ? mapFinishReason(this.finishRaw, this.sawCall)
        : this.blockReason !== undefined
          ? { reason: "content_filter", raw: this.blockReason }
          : { reason: "other" };
    yield { type: "finish", finish };
  }

  private *part(part: GeminiPart): Generator<StreamEvent> {
    const signature = part.thoughtSignature;
    if (part.thought === true) {
      if (this.open?.kind !== "reasoning") yield* this.openBlock("reasoning");
      const open = this.open as OpenBlock;
      if (part.text) yield { type: "reasoning-delta", id: open.id, delta: part.text };
      if (signature !== undefined) open.signature = signature;
      return;
    }
    if (part.functionCall) {
      yield* this.placeSignature(signature);
      yield* this.close();
      const id = part.functionCall.id ?? `call_${this.calls}`;
      this.calls++;
      this.sawCall = true;
      yield { type: "tool-call-start", id, name: part.functionCall.name };
      yield { type: "tool-call-delta", id, delta: JSON.stringify(part.functionCall.args ?? {}) };
      yield { type: "tool-call-end", id };
      return;
    }
    if (part.text !== undefined) {
      const continuing = this.open?.kind === "text";
      if (signature !== undefined) {
        if (continuing) this.trailingSignature = signature;
        else yield* this.placeSignature(signature);
      }
      if (this.open?.kind !== "text") {
        if (part.text === "") return; // an empty part that only carried a signature opens nothing
        yield* this.openBlock("text");
      }
      if (part.text !== "") yield { type: "text-delta", id: (this.open as OpenBlock).id, delta: part.text };
      return;
    }
    if (signature !== undefined) yield* this.placeSignature(signature);
    // Generated images and speech: whole parts of their own, between the text around them.
    const media = part.inlineData ? mediaEvent(part.inlineData, `media-${this.blocks}`) : undefined;
    if (media !== undefined) {
      this.blocks++;
      yield* this.close();
      yield media;
      return;
    }
    const kind = Object.keys(part).find((key) => key !== "thoughtSignature") ?? "empty";
    warnUnsupported(this.call, `response.${kind}`, `Gemini returned a ${kind} part, which the gateway cannot relay; it was dropped`);
  }

  /** A signature for the part about to follow: onto the open, unsigned thoughts, else as its own reasoning part. */
  private *placeSignature(signature: string | undefined): Generator<StreamEvent> {
    if (signature === undefined) return;
    if (this.open?.kind === "reasoning" && this.open.signature === undefined) {
      this.open.signature = signature;
      yield* this.close();
      return;
    }
    yield* this.close();
    yield* this.signatureOnly(signature);
  }

  private *signatureOnly(signature: string): Generator<StreamEvent> {
    const id = `reasoning-${this.blocks++}`;
    yield { type: "reasoning-start", id, format: GEMINI_REASONING_FORMAT };
    yield { type: "reasoning-end", id, signature };
  }

  private *openBlock(kind: OpenBlock["kind"]): Generator<StreamEvent> {
    yield* this.close();
    const id = `${kind}-${this.blocks++}`;
    this.open = { kind, id };
    yield kind === "text" ? { type: "text-start", id } : { type: "reasoning-start", id, format: GEMINI_REASONING_FORMAT };
  }

  private *close(): Generator<StreamEvent> {
    const open = this.open;
    this.open = undefined;
    if (open === undefined) return;
    if (open.kind === "text") yield { type: "text-end", id: open.id };
    else yield open.signature !== undefined ? { type: "reasoning-end", id: open.id, signature: open.signature } : { type: "reasoning-end", id: open.id };
  }
}
