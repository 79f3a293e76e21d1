/**
 * The `openai-responses` provider adapter: upstreams that speak OpenAI's Responses API natively (OpenAI itself,
 * Azure-style deployments, gateways of our kind). High fidelity: reasoning items with encrypted content, function
 * call item ids, structured output and verbosity travel as they are. Split like Portkey: `request.ts`,
 * `response.ts`, `stream.ts`.
 */
import { Type } from "@sinclair/typebox";
import { type CanonicalResponse, defineProvider, eventsFromResponse, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { bearerHeaders, parseSse, postJson, readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import { toResponsesBody } from "./request.ts";
import { fromResponsesResult } from "./response.ts";
import { responsesStreamToEvents } from "./stream.ts";
import type { WireResponse } from "./wire.ts";
import { OPENAI_RESPONSES_PARAMETERS } from "./parameters.ts";

/** `${baseUrl}/responses`, tolerating a trailing slash in the configured base URL. */
export function responsesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/responses`;
}

/** Sends the request; a non-2xx reply is thrown as a mapped GatewayError before anything is returned. */
async function send(call: ProviderCall, stream: boolean): Promise<Response> {
  const body = translate(call, (request) => toResponsesBody(request, call.target, stream));
  call.onUpstreamBody?.(body);
  return postJson(call, responsesUrl(call.target.baseUrl), body, bearerHeaders(call));
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  return resultOf(call, await send(call, false));
}

async function resultOf(call: ProviderCall, response: Response): Promise<CanonicalResponse> {
  return fromResponsesResult(await readJsonObject<WireResponse>(call, response), call);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const response = await send(call, true);
  // Some servers ignore `stream: true` and answer with one JSON result: read it before returning, so a failed
  // result still throws where routing can fall back, and replay a finished one as events.
  if (response.headers.get("content-type")?.includes("application/json")) {
    return eventsFromResponse(await resultOf(call, response));
  }
  return responsesStreamToEvents(parseSse(streamBody(call, response)), call);
}

/** The adapter takes no options; a typo in the config is rejected at start-up rather than ignored. */
const optionsSchema = Type.Object({}, { additionalProperties: false });

/** The adapter module (to be listed in `providers/index.ts`). */
export default defineProvider({
  id: "openai-responses",
  description: "Upstreams that speak OpenAI's Responses API natively (POST /responses)",
  optionsSchema,
  supportedParameters: OPENAI_RESPONSES_PARAMETERS,
  generate,
  stream,
});
