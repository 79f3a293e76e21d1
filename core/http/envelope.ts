/** The one error envelope (spec "Errors"): `{error: {code, message, metadata}, service_metadata, user_id}`. */
import { toGatewayError, type GatewayError } from "../errors.ts";
import { clipMessage, clipStrings } from "./clip.ts";

export interface ErrorEnvelope {
  error: { code: number; message: string; metadata: Record<string, unknown> };
  service_metadata: Record<string, unknown> | null;
  user_id: string | null;
}

/**
 * Builds the envelope; a 500 never echoes internals or upstream metadata. Messages and metadata
 * often repeat what the client sent (a model name, a plugin id): they are clipped so that a huge value is never
 * sent back whole (./clip.ts).
 */
export function envelopeOf(thrown: unknown, serviceMetadata: Record<string, unknown> | null = null, userId: string | null = null): ErrorEnvelope {
  const error = toGatewayError(thrown);
  // Any 500 hides its details, whatever type a module gave it; upstream 5xx (502/503/529...) keep theirs.
  const internal = error.status === 500 || error.type === "server" || error.type === "unmapped";
  return {
    error: {
      code: error.status,
      message: internal ? "Internal server error" : clipMessage(error.message),
      metadata: internal ? { error_type: error.type } : { ...clipStrings(error.metadata), error_type: error.type },
    },
    service_metadata: internal ? null : serviceMetadata,
    user_id: userId,
  };
}

const JSON_HEADERS = { "content-type": "application/json" };

/** The HTTP reply for an error, with Retry-After when the error carries one. */
export function errorResponse(error: GatewayError, envelope: ErrorEnvelope, extraHeaders?: Record<string, string>): Response {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extraHeaders };
  if (error.retryAfter !== undefined) headers["retry-after"] = String(Math.ceil(error.retryAfter));
  return new Response(JSON.stringify(envelope), { status: error.status, headers });
}

export function jsonResponse(body: unknown, status = 200, extraHeaders?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...extraHeaders } });
}
