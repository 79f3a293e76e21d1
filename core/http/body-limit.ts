/**
 * The request body limit (`server.body_limit_bytes`), enforced by the app with the error envelope at its exact
 * boundary: `limit` bytes are accepted, `limit + 1` are a 413. A declared `content-length` is checked before the
 * body is read (core/app.ts); a body without one (chunked) is read with a running count and refused as soon as it
 * passes the limit, so it is never buffered whole (./body-read.ts).
 */
import { GatewayError } from "../errors.ts";

export function payloadTooLarge(limit: number): GatewayError {
  return new GatewayError("payload_too_large", `Request payload too large (limit ${limit} bytes)`);
}
