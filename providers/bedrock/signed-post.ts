/**
 * One signed POST to Bedrock (Converse, ConverseStream, InvokeModel): the call's credentials (SigV4 or a Bedrock API
 * key) over the exact body, Bedrock's error dialect with the secrets redacted, and stale credentials read again.
 */
import type { ProviderCall } from "../../core/sdk/index.ts";
import { postBody } from "../../core/sdk/provider.ts";
import { type BedrockAuth, CredentialError } from "./credentials.ts";
import type { BedrockEndpoint } from "./endpoint.ts";
import { errorTypeOf, mapBedrockError, STALE_CREDENTIALS } from "./errors.ts";
import { redactSecrets } from "./redact.ts";
import { authorizedHeaders } from "./signing.ts";

/** What a call needs of its context here (a chat call or an embedding call). */
export type BedrockCallContext = Pick<ProviderCall, "target" | "helpers" | "signal">;

/** The 2xx reply, and the authentication it was sent with (to keep its secrets out of any error). */
export async function signedPost(call: BedrockCallContext, endpoint: BedrockEndpoint, url: string, text: string, accept: string): Promise<{ response: Response; auth: BedrockAuth }> {
  let auth: BedrockAuth;
  try {
    auth = endpoint.credentials.auth(call.helpers.now());
  } catch (thrown) {
    if (!(thrown instanceof CredentialError)) throw thrown;
    throw call.helpers.error("provider_unavailable", `Bedrock provider ${call.target.providerId} has no credentials: ${thrown.message}`, { status: 502, retryable: true });
  }
  const headers = await authorizedHeaders(auth, url, text, { "content-type": "application/json", accept, ...call.target.headers }, endpoint.region);
  const response = await postBody(call, url, text, headers, {
    mapError(status, errorBody, replyHeaders, make) {
      // A refused session may have been refreshed on disk already: the next call reads the credentials again.
      if (status === 403 && STALE_CREDENTIALS.has(errorTypeOf(replyHeaders, errorBody) ?? "")) endpoint.credentials.invalidate();
      return mapBedrockError(status, redactSecrets(errorBody, auth), replyHeaders, make);
    },
  });
  return { response, auth };
}
