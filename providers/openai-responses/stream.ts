/**
 * Responses SSE events → canonical stream events (Portkey-style `stream` transform).
 * `start` from `response.created`, part events from the item-scoped events, then `usage` and `finish` from
 * `response.completed` / `response.incomplete`. `response.failed`, an `error` event, malformed data or a stream cut
 * before its terminal event all become an `error` event, never a silent cut.
 */
import type { ProviderCall, StreamEvent } from "../../core/sdk/index.ts";
import { parseTypedEvent, type SseEvent, streamInterrupted, streamReadFailure } from "../../core/sdk/provider.ts";
import { StreamItems } from "./stream-items.ts";
import { mapFailure, mapFinish, mapUsage } from "./usage.ts";
import { withWebSearches } from "./web-search.ts";
import type { WireResponse, WireStreamEvent } from "./wire.ts";

/** Lifecycle events that end a Responses stream. */
const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

/** Translates the parsed SSE of one Responses stream; a client abort is rethrown as-is. */
export async function* responsesStreamToEvents(sse: AsyncIterable<SseEvent>, call: ProviderCall): AsyncGenerator<StreamEvent, void, undefined> {
  const items = new StreamItems(
    () => call.helpers.id("call"),
    (itemType) => call.helpers.logger.warn({ provider: call.target.providerId, itemType }, "upstream output item kind not supported; dropped"),
  );
  let started = false;
  const start = (response: WireResponse | undefined): StreamEvent => {
    started = true;
    return startEvent(response, call);
  };
  try {
    for await (const sseEvent of sse) {
      if (sseEvent.data === "[DONE]") break;
      const event = parseTypedEvent<WireStreamEvent>(sseEvent.data);
      if (event === undefined) {
        if (!started) yield start(undefined);
        yield { type: "error", error: streamInterrupted(call, "Upstream stream sent malformed data") };
        return;
      }
      // Normally `response.created`; any lifecycle event (`queued`, `in_progress`) carries the same identity.
      if (!started) yield start(event.response);
      if (TERMINAL.has(event.type)) {
        yield* terminal(event, items, call);
        return;
      }
      const out: StreamEvent[] = [];
      items.handle(event, out);
      yield* out;
    }
  } catch (thrown) {
    // A client abort propagates as-is; a dropped connection or the deadline is reported in-band.
    const failure = streamReadFailure(call, thrown);
    if (!started) yield start(undefined);
    yield { type: "error", error: failure };
    return;
  }
  if (!started) yield start(undefined);
  yield { type: "error", error: streamInterrupted(call, "Upstream stream ended before the response completed") };
}

/** The events a terminal upstream event produces: closing parts, usage and finish, or the error. */
function terminal(event: WireStreamEvent, items: StreamItems, call: ProviderCall): StreamEvent[] {
  if (event.type === "error") {
    const error = event.error ?? { code: event.code ?? null, message: event.message ?? "Upstream provider failed" };
    return [{ type: "error", error: mapFailure(error, undefined, call) }];
  }
  const response = event.response ?? {};
  if (event.type === "response.failed") {
    return [{ type: "error", error: mapFailure(response.error, response.error_type, call) }];
  }
  const out: StreamEvent[] = [];
  items.closeAll(out);
  if (response.usage) out.push({ type: "usage", usage: withWebSearches(mapUsage(response.usage), items.webSearches) });
  const status = response.status ?? (event.type === "response.incomplete" ? "incomplete" : "completed");
  out.push({ type: "finish", finish: mapFinish({ ...response, status }, items.sawToolCall) });
  return out;
}

function startEvent(response: WireResponse | undefined, call: ProviderCall): StreamEvent {
  const event: Extract<StreamEvent, { type: "start" }> = {
    type: "start",
    id: response?.id ?? "",
    model: response?.model ?? call.target.upstreamModel,
    provider: call.target.providerId,
    created: response?.created_at ?? Math.floor(call.helpers.now() / 1000),
  };
  if (typeof response?.service_tier === "string") event.serviceTier = response.service_tier;
  return event;
}
