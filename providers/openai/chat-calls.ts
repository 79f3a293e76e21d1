/**
 * The calls of the `openai` adapter and of each of its kinds: the chat-completions translation (request.ts,
 * response.ts, stream.ts) with a kind's quirks (./quirks.ts) around it. Built once per kind at start-up.
 */
import { type CanonicalResponse, eventsFromResponse, type EventStream, type ProviderAdapter, type ProviderCall } from "../../core/sdk/index.ts";
import { bearerHeaders, parseSse, postJson, readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import { openAIImages } from "./images.ts";
import type { ChatQuirks, ReplyQuirk } from "./quirks.ts";
import { toChatBody } from "./request.ts";
import { fromChatCompletion } from "./response.ts";
import { chatStreamToEvents } from "./stream.ts";
import type { ChatCompletion } from "./wire.ts";

/** `${baseUrl}/chat/completions`, tolerating a trailing slash in the configured base URL. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

/** `generate`, `stream` and `images` over chat completions with these quirks. */
export function chatCalls(quirks: ChatQuirks = {}): Pick<ProviderAdapter, "generate" | "stream" | "images"> {
  const { request: adjust, reply: replyOf, mapError, ownsReasoning = false } = quirks;
  const postOptions = mapError ? { mapError } : {};

  async function send(call: ProviderCall, stream: boolean): Promise<Response> {
    // A kind's quirks adjust the body inside the translation: what they drop is reported with the rest.
    const body = translate(call, (request) => {
      const built = toChatBody(request, call.target, stream, ownsReasoning);
      if (adjust !== undefined) adjust(built, { ...call, request });
      return built;
    });
    call.onUpstreamBody?.(body);
    return postJson(call, chatCompletionsUrl(call.target.baseUrl), body, bearerHeaders(call), postOptions);
  }

  async function completionOf(call: ProviderCall, response: Response, reply: ReplyQuirk | undefined): Promise<CanonicalResponse> {
    const body = await readJsonObject<ChatCompletion>(call, response);
    if (reply?.chunk !== undefined) reply.chunk(body);
    const canonical = fromChatCompletion(body, call);
    if (reply === undefined) return canonical;
    if (reply.usage !== undefined) canonical.usage = reply.usage(canonical.usage);
    if (reply.finish !== undefined) canonical.finish = reply.finish(canonical.finish);
    if (reply.response !== undefined) reply.response(canonical);
    return canonical;
  }

  async function generate(call: ProviderCall): Promise<CanonicalResponse> {
    const response = await send(call, false);
    return completionOf(call, response, replyOf?.(call));
  }

  async function stream(call: ProviderCall): Promise<EventStream> {
    const response = await send(call, true);
    const reply = replyOf?.(call);
    // Some compatible servers ignore `stream: true` (or report errors) with one JSON body: read it before returning,
    // so an error in it still throws where routing can fall back.
    if (response.headers.get("content-type")?.includes("application/json")) {
      return eventsFromResponse(await completionOf(call, response, reply));
    }
    const events = chatStreamToEvents(parseSse(streamBody(call, response)), call, reply);
    return reply?.events !== undefined ? reply.events(events) : events;
  }

  return { generate, stream, images: (call) => openAIImages(call, generate) };
}
