/**
 * The `openai` provider adapter: OpenAI chat completions and every server that speaks it (vLLM, Ollama, llama.cpp,
 * Groq, Together, DeepSeek, OpenRouter). Split like Portkey: `request.ts`, `response.ts`, `stream.ts`; images
 * (`service:image_generation`) in `images.ts`.
 */
import { type CanonicalResponse, defineProvider, eventsFromResponse, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { bearerHeaders, parseSse, postJson, readJsonObject, streamBody } from "../../core/sdk/provider.ts";
import { openAIImages } from "./images.ts";
import { openAIOptionsSchema } from "./options.ts";
import { toChatBody } from "./request.ts";
import { fromChatCompletion } from "./response.ts";
import { chatStreamToEvents } from "./stream.ts";
import type { ChatCompletion } from "./wire.ts";
import { OPENAI_PARAMETERS } from "./parameters.ts";

/** `${baseUrl}/chat/completions`, tolerating a trailing slash in the configured base URL. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = toChatBody(call.request, call.target, stream);
  call.onUpstreamBody?.(body);
  return postJson(call, chatCompletionsUrl(call.target.baseUrl), body, bearerHeaders(call));
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  return completionOf(call, await send(call, false));
}

async function completionOf(call: ProviderCall, response: Response): Promise<CanonicalResponse> {
  return fromChatCompletion(await readJsonObject<ChatCompletion>(call, response), call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  // Some compatible servers ignore `stream: true` (or report errors) with one JSON body: read it before returning,
  // so an error in it still throws where routing can fall back.
  if (response.headers.get("content-type")?.includes("application/json")) {
    return eventsFromResponse(await completionOf(call, response));
  }
  return chatStreamToEvents(parseSse(streamBody(call, response)), call);
}

/** The adapter module (registered in `providers/index.ts`). */
export default defineProvider({
  id: "openai",
  description: "OpenAI chat completions and OpenAI-compatible servers (vLLM, Ollama, llama.cpp, Groq, Together, DeepSeek)",
  optionsSchema: openAIOptionsSchema,
  supportedParameters: OPENAI_PARAMETERS,
  generate,
  stream,
  images: (call) => openAIImages(call, generate),
});
