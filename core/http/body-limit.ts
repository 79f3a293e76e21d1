/**
 * The request body limit (`server.body_limit_bytes`), enforced by the app with the error envelope at its exact
 * boundary: `limit` bytes are accepted, `limit + 1` are a 413. A declared `content-length` is checked before the
 * body is read (core/app.ts); a body without one (chunked) is read here with a running count and refused as soon as
 * it passes the limit, so it is never buffered whole.
 */
import { GatewayError } from "../errors.ts";

export function payloadTooLarge(limit: number): GatewayError {
  return new GatewayError("payload_too_large", `Request payload too large (limit ${limit} bytes)`);
}

/** The JSON of a body that declared no length, read up to `limit` bytes; undefined when there is no such body. */
export async function readUndeclaredJson(request: Request, limit: number): Promise<unknown> {
  if (request.body === null || request.headers.has("content-length")) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks, size).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GatewayError("invalid_request", "Malformed JSON in request body");
  }
}
