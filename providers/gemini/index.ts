/**
 * The `gemini` provider adapter: Google's Gemini API (`generateContent` / `streamGenerateContent?alt=sse`) with
 * system instruction, function calling, thought summaries and thought signatures, and usage. Split like Portkey:
 * `request.ts`, `response.ts`, `stream.ts`.
 */
import { type CanonicalResponse, defineProvider, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { parseSse, postJson, readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import { geminiEmbed } from "./embed.ts";
import { mapGeminiError } from "./errors.ts";
import { geminiOptionsSchema } from "./options.ts";
import { geminiHeaders, geminiUrl, toGeminiBody } from "./request.ts";
import { fromGeminiResponse } from "./response.ts";
import { geminiStreamToEvents } from "./stream.ts";
import type { GeminiResponse } from "./wire.ts";
import { GEMINI_PARAMETERS } from "./parameters.ts";

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = translate(call, (request) => toGeminiBody(request, call.target));
  call.onUpstreamBody?.(body);
  const url = geminiUrl(call.target.baseUrl, call.target.upstreamModel, stream);
  return postJson(call, url, body, geminiHeaders(call.target), { mapError: mapGeminiError });
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  return fromGeminiResponse(await readJsonObject<GeminiResponse>(call, await send(call, false)), call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  return geminiStreamToEvents(parseSse(streamBody(call, response)), call);
}

/** The adapter module (to be listed in `providers/index.ts`). */
export default defineProvider({
  id: "gemini",
  description: "Google Gemini API (generateContent / streamGenerateContent: tools, thought signatures, usage)",
  optionsSchema: geminiOptionsSchema,
  supportedParameters: GEMINI_PARAMETERS,
  generate,
  stream,
  embed: geminiEmbed,
});
