/**
 * Whether a request runs in strict translation mode (README "Strict mode"). The `X-Service-Strict` header decides
 * when sent, either way: strictness protects the client's own request, so a client may also turn a default off.
 * Without the header, the key's own default applies, then the config's `strict` (default false).
 */
import { errors } from "../../errors.ts";

export const STRICT_HEADER = "x-service-strict";

/** The header's value as a boolean, undefined when absent; anything but `true`/`false` is a 400 naming the header. */
export function strictHeader(headers: Headers): boolean | undefined {
  const raw = headers.get(STRICT_HEADER);
  if (raw === null) return undefined;
  const value = raw.trim().toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  throw errors.invalid(`The X-Service-Strict header must be "true" or "false", not ${JSON.stringify(raw.slice(0, 40))}`, { param: "X-Service-Strict" });
}

export function isStrict(headers: Headers, keyDefault: boolean | undefined, configDefault: boolean | undefined): boolean {
  return strictHeader(headers) ?? keyDefault ?? configDefault ?? false;
}
