/**
 * Chat-completions SSE chunks → canonical stream events (Portkey-style `stream` transform).
 * `start` first, part events, then `usage` and `finish` once the stream has ended; an in-band error chunk, malformed
 * data, a stream cut before its finish or one with no chunk of the expected shape becomes an `error` event, never a
 * silent cut or an empty success.
 */
import type { Finish, GatewayError, ProviderCall, StreamEvent, Usage } from "../../core/sdk/index.ts";
import { isErrorType, mapUpstreamError, parseJsonObject, shapelessStream, type SseEvent, streamInterrupted, streamReadFailure } from "../../core/sdk/provider.ts";
import { ContentChunks } from "./content-chunks.ts";
import { mapFinish } from "./finish.ts";
import { PartTracker } from "./stream-parts.ts";
import { mapUsage } from "./usage.ts";
import type { ReplyQuirk } from "./quirks.ts";
import type { ChatCompletion, WireChoice, WireError } from "./wire.ts";

/**
 * Translates the parsed SSE of one chat-completions stream. The finish reason arrives before the usage-only chunk
 * (`stream_options.include_usage`), so both are held and emitted at the end: usage, then finish. Read failures become
 * an `error` event, except a client abort, which is rethrown as-is.
 */
export async function* chatStreamToEvents(
  sse: AsyncIterable<SseEvent>,
  call: ProviderCall,
  /** A kind's quirks of this reply (./quirks.ts). */
  quirk?: ReplyQuirk,
): AsyncGenerator<StreamEvent, void, undefined> {
  const onChunk = quirk?.chunk;
  const onUsage = quirk?.usage;
  const onFinish = quirk?.finish;
  const parts = new PartTracker({
    toolCallId: () => call.helpers.id("call"),
    onLateToolDelta: (index) => call.helpers.logger.warn({ provider: call.target.providerId, index }, "tool-call fragment after the call closed; dropped"),
  });
  let started = false;
  const light = onChunk === undefined ? new ContentChunks() : undefined;
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  let sawDone = false;
  /** Some chunk produced a part event (content, reasoning, a tool call, an image, audio). */
  let produced = false;
  const start = (chunk: ChatCompletion | undefined): StreamEvent => {
    started = true;
    return startEvent(chunk, call);
  };
  try {
    for await (const event of sse) {
      if (event.data === "[DONE]") {
        sawDone = true;
        break;
      }
      // Most chunks repeat the last plain-content one but for its text: read just the text (./content-chunks.ts).
      // A kind that reads or changes chunks gets every one parsed whole.
      let chunk = started && light !== undefined ? light.read(event.data) : undefined;
      if (chunk === undefined) {
        chunk = parseJsonObject<ChatCompletion>(event.data);
        if (chunk !== undefined && light !== undefined) light.learn(event.data, chunk);
      }
      if (chunk === undefined) {
        if (!started) yield start(undefined);
        yield { type: "error", error: streamInterrupted(call, "Upstream stream sent malformed data") };
        return;
      }
      if (onChunk !== undefined) onChunk(chunk);
      if (!started) {
        // Azure sends a leading chunk with empty id/model and only `prompt_filter_results`: wait for a real one.
        if ((chunk.choices?.length ?? 0) === 0 && !chunk.usage && chunk.error === undefined) continue;
        yield start(chunk);
      }
      if (chunk.error !== undefined) {
        yield { type: "error", error: inBandError(chunk.error, call) };
        return;
      }
      if (chunk.usage) usage = mapUsage(chunk.usage);
      // Only choice 0: the adapter never asks for `n` > 1.
      const choice = firstChoice(chunk);
      if (choice === undefined) continue;
      if (choice.delta) {
        const logprobs = choice.logprobs?.content;
        // Plain loops, not `yield*`: that builds an async-from-sync iterator per chunk.
        const events = parts.delta(choice.delta, Array.isArray(logprobs) ? logprobs : undefined);
        if (events.length > 0) produced = true;
        for (let i = 0; i < events.length; i++) yield events[i]!;
      }
      if (choice.finish_reason) {
        const closing: StreamEvent[] = [];
        parts.close(closing);
        for (let i = 0; i < closing.length; i++) yield closing[i]!;
        finish = mapFinish(choice.finish_reason, choice.native_finish_reason);
      }
    }
  } catch (thrown) {
    // A client abort propagates as-is; a dropped connection or the deadline is reported in-band.
    const failure = streamReadFailure(call, thrown);
    if (!started) yield start(undefined);
    yield { type: "error", error: failure };
    return;
  }
  if (!started) yield start(undefined);
  if (finish === undefined && !sawDone) {
    yield { type: "error", error: streamInterrupted(call, "upstream stream ended unexpectedly") };
    return;
  }
  if (finish === undefined && usage === undefined && !produced) {
    yield { type: "error", error: shapelessStream(call) };
    return;
  }
  const closing: StreamEvent[] = [];
  parts.close(closing);
  for (let i = 0; i < closing.length; i++) yield closing[i]!;
  if (usage !== undefined) yield { type: "usage", usage: onUsage === undefined ? usage : onUsage(usage) };
  // [DONE] without any finish_reason: the upstream ended deliberately but did not say why.
  const last = finish ?? { reason: "other" };
  yield { type: "finish", finish: onFinish === undefined ? last : onFinish(last) };
}

/** Choice 0 of a chunk (a loop, not `find` with a closure: once per chunk of every stream). */
function firstChoice(chunk: ChatCompletion): WireChoice | undefined {
  const choices = chunk.choices;
  // Not an array (a malformed chunk): as `find` would have it, a TypeError for the translation to report.
  if (!Array.isArray(choices)) return choices === undefined || choices === null ? undefined : (choices as WireChoice[]).find((c) => (c.index ?? 0) === 0);
  for (let i = 0; i < choices.length; i++) if ((choices[i]!.index ?? 0) === 0) return choices[i];
  return undefined;
}

function startEvent(chunk: ChatCompletion | undefined, call: ProviderCall): StreamEvent {
  const event: Extract<StreamEvent, { type: "start" }> = {
    type: "start",
    id: chunk?.id ?? "",
    // `||`: some servers send empty strings and 0 rather than leaving the fields out.
    model: chunk?.model || call.target.upstreamModel,
    provider: call.target.providerId,
    created: chunk?.created || Math.floor(call.helpers.now() / 1000),
  };
  if (typeof chunk?.service_tier === "string") event.serviceTier = chunk.service_tier;
  return event;
}

/**
 * An in-band `error` chunk: `metadata.error_type` is already canonical when the upstream is a gateway
 * of our kind; otherwise a numeric `code` is an HTTP status and maps like a non-2xx reply.
 */
function inBandError(error: WireError, call: ProviderCall): GatewayError {
  const declared = error.metadata?.error_type;
  if (isErrorType(declared)) {
    const metadata: Record<string, unknown> = { provider_code: error.metadata?.provider_code ?? error.code ?? declared };
    if (error.message !== undefined) metadata.provider_message = error.message;
    return call.helpers.error(declared, error.message ?? "Upstream provider failed", { metadata });
  }
  const status = typeof error.code === "number" && error.code >= 400 && error.code < 600 ? error.code : 502;
  return mapUpstreamError(status, { error }, new Headers(), call.helpers.error);
}
