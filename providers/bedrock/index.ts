/**
 * The `bedrock` provider adapter: Amazon Bedrock's Converse API (`POST /model/{modelId}/converse` and
 * `/converse-stream`) with SigV4 or a Bedrock API key (README "Cloud providers"). Split like the other adapters:
 * `request.ts`, `response.ts`, `stream.ts`; the endpoint (region, URLs, credentials) is prepared once at start-up
 * (`endpoint.ts`), each call signed over its exact body (`signing.ts`) and sent with the gateway's own HTTP client.
 */
import { type CanonicalResponse, defineProvider, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import type { BedrockAuth } from "./credentials.ts";
import { bedrockEmbed } from "./embed.ts";
import { type BedrockEndpoint, endpointOf, prepareBedrockTarget } from "./endpoint.ts";
import { readEventStream } from "./event-stream.ts";
import { redactSecrets } from "./redact.ts";
import { bedrockOptionsSchema } from "./options.ts";
import { BEDROCK_PARAMETERS } from "./parameters.ts";
import { toConverseBody } from "./request.ts";
import { fromConverseResponse } from "./response.ts";
import { signedPost } from "./signed-post.ts";
import { converseStreamToEvents } from "./stream.ts";
import type { WireConverseResponse } from "./wire.ts";

/** One Converse call's reply (2xx), and the authentication it was sent with (to keep its secrets out of any error). */
async function send(call: ProviderCall, endpoint: BedrockEndpoint, stream: boolean): Promise<{ response: Response; auth: BedrockAuth }> {
  const body = translate(call, (request) => toConverseBody(request, endpoint));
  call.onUpstreamBody?.(body);
  const text = JSON.stringify(body);
  return stream ? signedPost(call, endpoint, endpoint.streamUrl, text, "application/vnd.amazon.eventstream") : signedPost(call, endpoint, endpoint.converseUrl, text, "application/json");
}

async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  const endpoint = endpointOf(call);
  const { response } = await send(call, endpoint, false);
  const requestId = response.headers.get("x-amzn-requestid");
  return fromConverseResponse(await readJsonObject<WireConverseResponse>(call, response), requestId, call, endpoint);
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const endpoint = endpointOf(call);
  const { response, auth } = await send(call, endpoint, true);
  const messages = readEventStream(streamBody(call, response));
  return converseStreamToEvents(messages, call, endpoint, response.headers.get("x-amzn-requestid"), (payload) => redactSecrets(payload, auth));
}

/** The adapter module (listed in `providers/index.ts`). */
export default defineProvider({
  id: "bedrock",
  description: "Amazon Bedrock Converse API (SigV4 or Bedrock API keys; Claude thinking, cache points, documents)",
  optionsSchema: bedrockOptionsSchema,
  supportedParameters: BEDROCK_PARAMETERS,
  prepareTarget: (target) => prepareBedrockTarget(target),
  generate,
  stream,
  embed: bedrockEmbed,
});
