/**
 * Gemini `streamGenerateContent?alt=sse` → canonical events. Each SSE `data` is one GenerateContentResponse chunk;
 * there is no terminal sentinel, so a stream that ends without any finish reason is reported as cut.
 */
import { isGatewayError, type GatewayError } from "../../core/errors.ts";
import type { StreamEvent } from "../../core/model/events.ts";
import type { ProviderCall } from "../../core/registry/provider.ts";
import { transportFailure } from "../shared/http.ts";
import type { SseEvent } from "../shared/sse.ts";
import { mapGeminiError } from "./errors.ts";
import { GeminiTranslator } from "./events.ts";
import type { GeminiResponse } from "./wire.ts";

/** Translates the parsed SSE of one Gemini stream. A client abort is rethrown; other failures end in `error`. */
export async function* geminiStreamToEvents(sse: AsyncIterable<SseEvent>, call: ProviderCall): AsyncGenerator<StreamEvent, void, undefined> {
  const translator = new GeminiTranslator(call, call.request.warnings);
  try {
    for await (const event of sse) {
      const chunk = parseChunk(event.data);
      if (chunk === undefined) {
        yield* translator.begin(undefined);
        yield { type: "error", error: broken(call, "Upstream stream sent malformed data") };
        return;
      }
      if (chunk.error !== undefined) {
        yield* translator.begin(undefined);
        yield { type: "error", error: mapGeminiError(200, chunk, new Headers(), call.helpers.error) };
        return;
      }
      yield* translator.chunk(chunk);
    }
  } catch (thrown) {
    const failure = transportFailure(call, thrown, "stream");
    if (!isGatewayError(failure)) throw failure;
    yield* translator.begin(undefined);
    yield { type: "error", error: failure };
    return;
  }
  if (!translator.finished) {
    yield* translator.begin(undefined);
    yield { type: "error", error: broken(call, "Upstream stream ended without a finish reason") };
    return;
  }
  yield* translator.end();
}

function parseChunk(data: string): GeminiResponse | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as GeminiResponse) : undefined;
  } catch {
    return undefined;
  }
}

function broken(call: ProviderCall, message: string): GatewayError {
  return call.helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata: { provider_code: "stream_interrupted" } });
}
