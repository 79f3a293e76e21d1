/**
 * The `anthropic` provider adapter: Anthropic's native Messages API, with passthrough fidelity for everything
 * Anthropic understands (signed and redacted thinking, cache_control, documents, typed tools, beta flags).
 * Split like Portkey: `request.ts`, `response.ts`, `stream.ts`.
 */
import type { EventStream } from "../../core/model/events.ts";
import type { CanonicalResponse } from "../../core/model/response.ts";
import { defineProvider } from "../../core/registry/define.ts";
import type { ProviderCall } from "../../core/registry/provider.ts";
import { postJson, readJson } from "../shared/http.ts";
import { parseSse } from "../shared/sse.ts";
import { mapAnthropicError } from "./errors.ts";
import { anthropicOptionsSchema } from "./options.ts";
import { anthropicHeaders, toAnthropicBody } from "./request.ts";
import { fromAnthropicMessage } from "./response.ts";
import { anthropicStreamToEvents } from "./stream.ts";
import type { WireMessage } from "./wire.ts";

/** `${baseUrl}/messages`, tolerating a trailing slash in the configured base URL. */
export function messagesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/messages`;
}

async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = toAnthropicBody(call.request, call.target, stream);
  call.onUpstreamBody?.(body);
  return postJson(call, messagesUrl(call.target.baseUrl), body, anthropicHeaders(call.request, call.target), { mapError: mapAnthropicError });
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  const response = await send(call, false);
  const body = await readJson(call, response);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned an unexpected body", { status: 502, retryable: true });
  }
  return fromAnthropicMessage(body as WireMessage, call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  if (response.body === null) {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned an empty stream", { status: 502, retryable: true });
  }
  return anthropicStreamToEvents(parseSse(response.body), call);
}

/** The adapter module (to be listed in `providers/index.ts`). */
export default defineProvider({
  id: "anthropic",
  description: "Anthropic Messages API (native: signed thinking, cache_control, documents, typed tools)",
  optionsSchema: anthropicOptionsSchema,
  generate,
  stream,
});
