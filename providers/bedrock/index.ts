/**
 * The `bedrock` provider adapter: Amazon Bedrock's Converse API (`POST /model/{modelId}/converse` and
 * `/converse-stream`) with SigV4 or a Bedrock API key (README "Cloud providers"). Split like the other adapters:
 * `request.ts`, `response.ts`, `stream.ts`; the endpoint (region, URLs, credentials) is prepared once at start-up
 * (`endpoint.ts`), each call signed over its exact body (`signing.ts`) and sent with the gateway's own HTTP client.
 */
import { type CanonicalResponse, defineProvider, type EventStream, type ProviderCall } from "../../core/sdk/index.ts";
import { postBody, readJsonObject, streamBody, translate } from "../../core/sdk/provider.ts";
import { type BedrockAuth, CredentialError } from "./credentials.ts";
import { type BedrockEndpoint, endpointOf, prepareBedrockTarget } from "./endpoint.ts";
import { errorTypeOf, mapBedrockError, STALE_CREDENTIALS } from "./errors.ts";
import { readEventStream } from "./event-stream.ts";
import { redactSecrets } from "./redact.ts";
import { bedrockOptionsSchema } from "./options.ts";
import { BEDROCK_PARAMETERS } from "./parameters.ts";
import { toConverseBody } from "./request.ts";
import { fromConverseResponse } from "./response.ts";
import { authorizedHeaders } from "./signing.ts";
import { converseStreamToEvents } from "./stream.ts";
import type { WireConverseResponse } from "./wire.ts";

const JSON_ACCEPT = { accept: "application/json" };
const STREAM_ACCEPT = { accept: "application/vnd.amazon.eventstream" };

/** One call's reply (2xx), and the authentication it was sent with (to keep its secrets out of any error). */
async function send(call: ProviderCall, endpoint: BedrockEndpoint, stream: boolean): Promise<{ response: Response; auth: BedrockAuth }> {
  const body = translate(call, (request) => toConverseBody(request, endpoint));
  call.onUpstreamBody?.(body);
  const text = JSON.stringify(body);
  const url = stream ? endpoint.streamUrl : endpoint.converseUrl;
  let auth: BedrockAuth;
  try {
    auth = endpoint.credentials.auth(call.helpers.now());
  } catch (thrown) {
    if (!(thrown instanceof CredentialError)) throw thrown;
    throw call.helpers.error("provider_unavailable", `Bedrock provider ${call.target.providerId} has no credentials: ${thrown.message}`, { status: 502, retryable: true });
  }
  const headers = await authorizedHeaders(auth, url, text, { "content-type": "application/json", ...(stream ? STREAM_ACCEPT : JSON_ACCEPT), ...call.target.headers }, endpoint.region);
  const response = await postBody(call, url, text, headers, {
    mapError(status, errorBody, replyHeaders, make) {
      // A refused session may have been refreshed on disk already: the next call reads the credentials again.
      if (status === 403 && STALE_CREDENTIALS.has(errorTypeOf(replyHeaders, errorBody) ?? "")) endpoint.credentials.invalidate();
      return mapBedrockError(status, redactSecrets(errorBody, auth), replyHeaders, make);
    },
  });
  return { response, auth };
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
});
