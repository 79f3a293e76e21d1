/**
 * Azure's side of a call, given to the OpenAI translation as its `helpers.fetch`: the `api-version` query of the
 * deployments style, the Entra bearer token (fetched here, after the translation, so strict mode has seen the whole
 * body first), and Azure's error replies mapped in its own dialect (./errors.ts). Everything else about the call — the
 * body, the stream, the reply — is the translation's, so Azure behaves as OpenAI does by construction.
 */
import type { CanonicalRequest, FetchFunction, ModuleHelpers, ProviderCall } from "../../core/sdk/index.ts";
import { mapAzureError } from "./errors.ts";
import type { AzurePlan } from "./plan.ts";

/** The call as the translation gets it: Azure's request, target and fetch. */
export function azureCall(call: ProviderCall, plan: AzurePlan, request: CanonicalRequest): ProviderCall {
  return { ...call, request, target: plan.inner, helpers: azureHelpers(call.helpers, plan) };
}

/** The call helpers with Azure's fetch in place (one wrapper per helpers object the gateway hands out). */
export function azureHelpers(helpers: ModuleHelpers, plan: AzurePlan): ModuleHelpers {
  let wrapped = plan.helpers.get(helpers);
  if (wrapped === undefined) {
    wrapped = { ...helpers, fetch: azureFetch(helpers, plan) };
    plan.helpers.set(helpers, wrapped);
  }
  return wrapped;
}

function azureFetch(helpers: ModuleHelpers, plan: AzurePlan): FetchFunction {
  const base = helpers.fetch;
  return async (input, init = {}) => {
    const url = plan.query === undefined ? input : withQuery(input, plan.query);
    let token: string | undefined;
    let sent = init;
    if (plan.tokens !== undefined) {
      token = await plan.tokens.token({ fetch: base, helpers, signal: init.signal });
      sent = { ...init, headers: { ...plainHeaders(init.headers), authorization: `Bearer ${token}` } };
    }
    const response = await base(url, sent);
    if (response.ok) return response;
    if (response.status === 401 && token !== undefined) plan.tokens?.invalidate(token);
    throw mapAzureError(response.status, await errorBody(response, init.signal), response.headers, helpers.error);
  };
}

/** The URL with Azure's query added (the translations pass URL strings; a Request would keep its own URL). */
function withQuery(input: string | URL | Request, query: string): string | URL | Request {
  if (input instanceof Request) return input;
  const url = String(input);
  return `${url}${url.includes("?") ? "&" : "?"}${query}`;
}

function plainHeaders(headers: RequestInit["headers"]): Record<string, string> {
  if (headers === undefined || headers === null) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  return headers as Record<string, string>;
}

/** The error body as JSON (or its text); a read cut by the client's abort rethrows the abort. */
async function errorBody(response: Response, signal: AbortSignal | null | undefined): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (thrown) {
    if (signal?.aborted) throw thrown;
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
