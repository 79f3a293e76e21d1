/**
 * What every adapter's stream translation shares: parsing one SSE `data` payload, and the in-band errors a broken
 * stream ends with (a read failure, a cut or malformed stream).
 */
import { isGatewayError, type GatewayError } from "../errors.ts";
import type { ProviderCall } from "../registry/provider.ts";
import { transportFailure, unexpectedBody } from "./http.ts";

/** One SSE `data` payload as a JSON object; undefined for malformed JSON, arrays and scalars. */
export function parseJsonObject<T>(data: string): T | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** One SSE `data` payload as an event object with a string `type`; undefined otherwise. */
export function parseTypedEvent<T>(data: string): T | undefined {
  const value = parseJsonObject<{ type?: unknown }>(data);
  return typeof value?.type === "string" ? (value as T) : undefined;
}

/**
 * A failure while reading the upstream stream, as the `error` event to end it with. A client abort is not reported
 * in-band: it is rethrown as-is; a dropped connection or the deadline becomes the returned GatewayError.
 */
export function streamReadFailure(call: ProviderCall, thrown: unknown): GatewayError {
  const failure = transportFailure(call, thrown, "stream");
  if (!isGatewayError(failure)) throw failure;
  return failure;
}

/** A stream the upstream cut or garbled: retryable 502 `provider_unavailable` with provider code `stream_interrupted`. */
export function streamInterrupted(call: ProviderCall, message: string): GatewayError {
  return call.helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata: { provider_code: "stream_interrupted" } });
}

/**
 * A stream that ended without one event of the expected shape (no content, no usage, no finish: `data:
 * {"hello":"world"}` then `[DONE]`): the non-streamed answer's retryable 502 `invalid_response`, never an empty
 * success. Before the first byte it fails the attempt, so the next endpoint is tried.
 */
export function shapelessStream(call: ProviderCall): GatewayError {
  return unexpectedBody(call, "a stream with no recognisable event");
}
