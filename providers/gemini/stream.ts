/**
 * Gemini `streamGenerateContent?alt=sse` → canonical events. Each SSE `data` is one GenerateContentResponse chunk;
 * there is no terminal sentinel, so a stream that ends without any finish reason is reported as cut.
 */
import type { ProviderCall, StreamEvent } from "../../core/sdk/index.ts";
import { parseJsonObject, type SseEvent, streamInterrupted, streamReadFailure } from "../../core/sdk/provider.ts";
import { mapGeminiError } from "./errors.ts";
import { GeminiTranslator } from "./events.ts";
import type { GeminiResponse } from "./wire.ts";

/** Translates the parsed SSE of one Gemini stream. A client abort is rethrown; other failures end in `error`. */
export async function* geminiStreamToEvents(sse: AsyncIterable<SseEvent>, call: ProviderCall): AsyncGenerator<StreamEvent, void, undefined> {
  const translator = new GeminiTranslator(call);
  try {
    for await (const event of sse) {
      const chunk = parseJsonObject<GeminiResponse>(event.data);
      if (chunk === undefined) {
        yield* translator.begin(undefined);
        yield { type: "error", error: streamInterrupted(call, "Upstream stream sent malformed data") };
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
    const failure = streamReadFailure(call, thrown);
    yield* translator.begin(undefined);
    yield { type: "error", error: failure };
    return;
  }
  if (!translator.finished) {
    yield* translator.begin(undefined);
    yield { type: "error", error: streamInterrupted(call, "Upstream stream ended without a finish reason") };
    return;
  }
  yield* translator.end();
}
