/** The `Idempotency-Key` request header (README "Idempotent requests"): read and checked at the route. */
import { errors } from "../errors.ts";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Longest key accepted: UUIDs and the SDKs' `stainless-node-retry-…` keys fit many times over. */
export const MAX_KEY_LENGTH = 255;

/** Printable ASCII only (space to tilde): a key is an opaque token, compared byte for byte. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/** The key the client sent, or undefined without the header; a key out of bounds is the client's 400. */
export function idempotencyKeyOf(headers: Headers): string | undefined {
  const key = headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return undefined;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !PRINTABLE.test(key)) {
    throw errors.invalid(`Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`, { param: "Idempotency-Key" });
  }
  return key;
}

/** The header as an OpenAPI parameter, for the docs of the routes that take it. */
export const IDEMPOTENCY_PARAMETER = {
  in: "header",
  name: "Idempotency-Key",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH },
  description: "Retries with the same key and body within 24 h get the first reply and are billed once (README \"Idempotent requests\").",
} as const;
