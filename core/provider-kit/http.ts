/**
 * Outbound HTTP for provider adapters (fetch comes from the call's injected helpers, so tests and
 * recording fakes see every call). Turns transport failures into GatewayErrors that routing can act on, and
 * leaves a client's own abort untouched so the pipeline recognises it.
 */
import { isGatewayError, type GatewayError } from "../errors.ts";
import type { ProviderCall } from "../registry/provider.ts";
import { mapUpstreamError, type ErrorFactory } from "./errors.ts";

/** What the HTTP helpers use of a call (an images call has the same, with another request). */
export type CallContext = Pick<ProviderCall, "helpers" | "signal">;

/** Maps a non-2xx upstream reply; adapters whose upstream has its own error dialect pass their own. */
export type UpstreamErrorMapper = (status: number, body: unknown, headers: Headers, make: ErrorFactory) => GatewayError;

/** Options of `postJson`. */
export interface PostJsonOptions {
  mapError?: UpstreamErrorMapper;
}

/**
 * POSTs `body` as JSON with `call.signal`, resolving with the Response once the upstream answered 2xx (its body
 * unread, so a stream can be consumed incrementally). A non-2xx reply is read and thrown as a mapped GatewayError
 * before anything is returned, so routing may still fall back.
 */
export function postJson(
  call: CallContext,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  options: PostJsonOptions = {},
): Promise<Response> {
  return postBody(call, url, JSON.stringify(body), headers, options);
}

/**
 * `postJson` for a body already serialised, for upstreams whose request is signed over its exact bytes (AWS
 * Signature Version 4 hashes the body): the headers given are sent as they are, after the JSON content type and the
 * default `accept`, so a signed `accept` is the one that travels.
 */
export async function postBody(
  call: CallContext,
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostJsonOptions = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await call.helpers.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
      signal: call.signal,
    });
  } catch (thrown) {
    throw transportFailure(call, thrown, "request");
  }
  if (response.ok) return response;
  const errorBody = await readErrorBody(call, response);
  const map = options.mapError ?? mapUpstreamError;
  throw map(response.status, errorBody, response.headers, call.helpers.error);
}

/** Reads a 2xx JSON body; an unreadable or non-JSON body is a broken upstream (502, retryable). */
export async function readJson(call: CallContext, response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (thrown) {
    throw transportFailure(call, thrown, "response body");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned a body that is not valid JSON", {
      status: 502,
      retryable: true,
      metadata: { provider_code: "invalid_json" },
    });
  }
}

/**
 * Classifies anything thrown while talking to the upstream:
 * - the call's signal was aborted by the client: the abort reason is rethrown as-is (the pipeline knows it);
 * - the signal carries a GatewayError (the pipeline aborted with one): that error;
 * - the signal timed out (`AbortSignal.timeout`, the request deadline): `timeout` 408, not retryable;
 * - anything else (ECONNREFUSED, ECONNRESET, DNS, TLS): `provider_unavailable` 502, retryable.
 */
export function transportFailure(call: CallContext, thrown: unknown, phase: string): unknown {
  if (call.signal.aborted) {
    const reason: unknown = call.signal.reason;
    if (isGatewayError(reason)) return reason;
    if (errorName(reason) === "TimeoutError") {
      return call.helpers.error("timeout", `Upstream ${phase} timed out`, { status: 408, retryable: false, cause: reason });
    }
    return reason ?? thrown;
  }
  if (isGatewayError(thrown)) return thrown;
  const code = errorCode(thrown);
  return call.helpers.error("provider_unavailable", `Upstream provider could not be reached (${phase} failed)`, {
    status: 502,
    retryable: true,
    metadata: { provider_code: code ?? "network_error" },
    cause: thrown,
  });
}

async function readErrorBody(call: CallContext, response: Response): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (thrown) {
    // The status alone still maps; only a client abort must escape.
    if (call.signal.aborted) throw transportFailure(call, thrown, "response body");
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorName(value: unknown): string | undefined {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string"
    ? (value as { name: string }).name
    : undefined;
}

function errorCode(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const code = (value as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** Reads a JSON object body; anything else (array, scalar) is a 502 the router may retry elsewhere. */
export async function readJsonObject<T>(call: CallContext, response: Response): Promise<T> {
  const body = await readJson(call, response);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw unexpectedBody(call, "not a JSON object");
  return body as T;
}

/**
 * A 2xx body that is JSON but not the answer the adapter asked for (`{"hello":"world"}` instead of a completion):
 * the same retryable 502 as invalid JSON, never an empty "successful" answer with zero usage. Each adapter's
 * response.ts checks the one field its answer cannot lack.
 */
export function unexpectedBody(call: CallContext, detail: string): GatewayError {
  return call.helpers.error("provider_unavailable", `Upstream provider returned an unexpected body (${detail})`, {
    status: 502,
    retryable: true,
    metadata: { provider_code: "invalid_response" },
  });
}

/** The body of a streaming reply; a reply without one is a 502 the router may retry elsewhere. */
export function streamBody(call: CallContext, response: Response): ReadableStream<Uint8Array> {
  if (response.body === null) {
    throw call.helpers.error("provider_unavailable", "Upstream provider returned an empty stream", { status: 502, retryable: true });
  }
  return response.body;
}

/** `Authorization: Bearer <key>` when a key is set; the target's headers last, so an operator can override anything. */
export function bearerHeaders(call: Pick<ProviderCall, "target">): Record<string, string> {
  const headers: Record<string, string> = call.target.apiKey ? { authorization: `Bearer ${call.target.apiKey}` } : {};
  return { ...headers, ...call.target.headers };
}
