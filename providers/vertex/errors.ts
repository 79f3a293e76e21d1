/**
 * Vertex AI's own error replies → GatewayErrors. Vertex answers in Google's `{error: {code, message, status,
 * details}}` shape for what it decides before a model runs, for both publishers; a Claude model's own failures come
 * back in Anthropic's shape, and a Gemini model's in the Gemini API's, which the translations map (./transport.ts
 * hands those replies on). What is Vertex's:
 *
 * - 429 `RESOURCE_EXHAUSTED` (a quota per project, region and base model, or shared capacity): a rate limit, retryable.
 * - 401 `UNAUTHENTICATED` / 403 `PERMISSION_DENIED` (an expired or revoked token, a key without the Vertex AI User
 *   role, the API not enabled in the project): the operator's credentials, so a retryable 502 that names no detail.
 * - 404 `NOT_FOUND` (the model does not exist in this location, or the project has no access to it, e.g. a partner
 *   model not enabled in Model Garden): the client's request is fine and another endpoint may serve it, a retryable 502.
 */
import type { GatewayError } from "../../core/sdk/index.ts";
import { type ErrorFactory, isPlainObject, mapUpstreamError, parseRetryAfter } from "../../core/sdk/provider.ts";

type Json = Record<string, unknown>;

/** The statuses Vertex itself answers before a model runs; other replies are the model's, for its translation. */
export const VERTEX_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 429]);

/** Google's `{error: {code, message, status}}`, or undefined for another shape. */
export function googleError(body: unknown): { code?: number; message?: string; status?: string } | undefined {
  if (!isPlainObject(body) || !isPlainObject(body.error)) return undefined;
  const error = body.error;
  if (typeof error.status !== "string" && typeof error.code !== "number") return undefined;
  return {
    ...(typeof error.code === "number" ? { code: error.code } : {}),
    ...(typeof error.message === "string" ? { message: error.message.slice(0, 500) } : {}),
    ...(typeof error.status === "string" ? { status: error.status } : {}),
  };
}

export function mapVertexError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  const google = googleError(body);
  const code = google?.status ?? (isPlainObject(body) && isPlainObject(body.error) && typeof body.error.type === "string" ? body.error.type : status);
  // (A 404 without Google's shape — an HTML page — comes from a base_url that is not Vertex's.)
  const metadata: Json = { provider_code: code, provider_status: status };
  switch (status) {
    case 429: {
      if (google?.message !== undefined) metadata.provider_message = google.message;
      const retryAfter = parseRetryAfter(headers);
      return make("rate_limit_exceeded", "Upstream provider's quota or capacity is exhausted (Vertex AI RESOURCE_EXHAUSTED)", {
        status: 429,
        retryable: true,
        metadata,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    }
    case 401:
    case 403:
      // The sentence may name the project or the service account: kept out of what the client sees.
      return make("provider_unavailable", "Upstream provider rejected the gateway's credentials", { status: 502, retryable: true, metadata });
    case 404:
      if (google?.message !== undefined) metadata.provider_message = google.message;
      return make("provider_unavailable", "Upstream provider does not serve this model in this project and location", { status: 502, retryable: true, metadata });
    default:
      return mapUpstreamError(status, body, headers, make);
  }
}
