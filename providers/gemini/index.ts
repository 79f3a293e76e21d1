/**
 * The `gemini` provider adapter: Google's Gemini API (`generateContent` / `streamGenerateContent?alt=sse`) with
 * system instruction, function calling, thought summaries and thought signatures, and usage. Split like Portkey:
 * `request.ts`, `response.ts`, `stream.ts`.
 */
import type { EventStream } from "../../core/model/events.ts";
import type { CanonicalResponse } from "../../core/model/response.ts";
import { defineProvider } from "../../core/registry/define.ts";
import type { ProviderCall } from "../../core/registry/provider.ts";
import { postJson, readJson } from "../shared/http.ts";
import { parseSse } from "../shared/sse.ts";
import { mapGeminiError } from "./errors.ts";
import { geminiOptionsSchema } from "./options.ts";
import { geminiHeaders, geminiUrl, toGeminiBody } from "./request.ts";
import { fromGeminiResponse } from "./response.ts";
import { geminiStreamToEvents } from "./stream.ts";
import type { GeminiResponse } from "./wire.ts";

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = toGeminiBody(call.request, call.target);
  call.onUpstreamBody?.(body);
  const url = geminiUrl(call.target.baseUrl, call.target.upstreamModel, stream);
  return postJson(call, url, body, geminiHeaders(call.target), { mapError: mapGeminiError });
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  const response = await send(call, false);
  const body = await readJson(call, response);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned an unexpected body", { status: 502, retryable: true });
  }
  return fromGeminiResponse(body as GeminiResponse, call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  if (response.body === null) {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned an empty stream", { status: 502, retryable: true });
  }
  return geminiStreamToEvents(parseSse(response.body), call);
}

/** The adapter module (to be listed in `providers/index.ts`). */
export default defineProvider({
  id: "gemini",
  description: "Google Gemini API (generateContent / streamGenerateContent: tools, thought signatures, usage)",
  optionsSchema: geminiOptionsSchema,
  generate,
  stream,
});
