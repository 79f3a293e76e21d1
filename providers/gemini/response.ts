/** Gemini `generateContent` reply → canonical response: the stream translator run over one chunk, then folded. */
import { type CanonicalResponse, type ProviderCall, ResponseBuilder } from "../../core/sdk/index.ts";
import { unexpectedBody } from "../../core/sdk/provider.ts";
import { mapGeminiError } from "./errors.ts";
import { GeminiTranslator } from "./events.ts";
import type { GeminiResponse } from "./wire.ts";

/**
 * Builds the canonical response; a 200 body carrying `error` is thrown as the mapped error. Dropped parts are
 * reported through `call.warn`, as on the stream path (the pipeline copies them into the response).
 */
export function fromGeminiResponse(body: GeminiResponse, call: ProviderCall): CanonicalResponse {
  if (body.error !== undefined) throw mapGeminiError(200, body, new Headers(), call.helpers.error);
  // A blocked prompt has no candidates, but says so in `promptFeedback`; a body with neither is not an answer.
  if (!Array.isArray(body.candidates) && (typeof body.promptFeedback !== "object" || body.promptFeedback === null)) throw unexpectedBody(call, "no candidates");
  const translator = new GeminiTranslator(call);
  const builder = new ResponseBuilder();
  for (const event of translator.chunk(body)) builder.add(event);
  for (const event of translator.end()) builder.add(event);
  return builder.response;
}
