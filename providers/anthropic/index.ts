/**
 * The `anthropic` provider adapter: Anthropic's native Messages API, with passthrough fidelity for everything
 * Anthropic understands (signed and redacted thinking, cache_control, documents, typed tools, beta flags).
 * Split like Portkey: `request.ts`, `response.ts`, `stream.ts`.
 */
import { type CanonicalResponse, defineProvider, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { parseSse, postJson, readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import { mapAnthropicError } from "./errors.ts";
import { anthropicOptionsSchema } from "./options.ts";
import { anthropicHeaders, toAnthropicBody } from "./request.ts";
import { fromAnthropicMessage } from "./response.ts";
import { anthropicStreamToEvents } from "./stream.ts";
import type { WireMessage } from "./wire.ts";
import { ANTHROPIC_PARAMETERS } from "./parameters.ts";

/** `${baseUrl}/messages`, tolerating a trailing slash in the configured base URL. */
export function messagesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/messages`;
}

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = translate(call, (request) => toAnthropicBody(request, call.target, stream));
  call.onUpstreamBody?.(body);
  return postJson(call, messagesUrl(call.target.baseUrl), body, anthropicHeaders(call.request, call.target), { mapError: mapAnthropicError });
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  return fromAnthropicMessage(await readJsonObject<WireMessage>(call, await send(call, false)), call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  return anthropicStreamToEvents(parseSse(streamBody(call, response)), call);
}

/** The adapter module (to be listed in `providers/index.ts`). */
export default defineProvider({
  id: "anthropic",
  description: "Anthropic Messages API (native: signed thinking, cache_control, documents, typed tools)",
  optionsSchema: anthropicOptionsSchema,
  supportedParameters: ANTHROPIC_PARAMETERS,
  // Anthropic refuses requests of more than 1,000 messages (peer reference: message transforms).
  maxMessages: 1_000,
  generate,
  stream,
});
