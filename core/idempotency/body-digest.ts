/**
 * The digest of a request's raw body bytes, taken by the body reader (core/http/body-read.ts) only when the request
 * carries an `Idempotency-Key`: a retry is the same request when its bytes are the same, whatever the route later
 * merges into the parsed body (presets). Requests without the header pay one header lookup.
 */
import { edgeRecordIfAny, edgeRecordOf } from "../http/edge-record.ts";
import { IDEMPOTENCY_HEADER } from "./header.ts";

export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** Called by the body reader with the bytes it read. */
export function rememberBodyDigest(request: Request, bytes: Uint8Array): void {
  const headers = request.headers;
  if (headers.has(IDEMPOTENCY_HEADER)) edgeRecordOf(headers).bodyDigest = sha256Hex(bytes);
}

/**
 * The digest of the raw body; for a body that reached the route some other way, the digest of its JSON (the same
 * request serialises the same way, so a retry still matches).
 */
export function bodyDigestOf(request: Request, parsed: unknown): string {
  return edgeRecordIfAny(request.headers)?.bodyDigest ?? sha256Hex(JSON.stringify(parsed) ?? "");
}
