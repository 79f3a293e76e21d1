/**
 * AWS's error sentences are relayed to clients (`provider_message`, the error's message) and logged; a sentence that
 * quoted the call's own secret (a key echoed back by a proxy or a malformed-request message) must not carry it on.
 * Applied to error bodies and exception payloads only, never to a successful answer.
 */
import type { BedrockAuth } from "./credentials.ts";

const REDACTED = "[redacted]";

/** The secrets a call authenticated with (the access key id is not one: AWS names it in its own messages). */
function secretsOf(auth: BedrockAuth): string[] {
  if (auth.kind === "bearer") return [auth.token];
  const { secretAccessKey, sessionToken } = auth.credentials;
  return sessionToken === undefined ? [secretAccessKey] : [secretAccessKey, sessionToken];
}

/** `value` (an error body or payload: text or JSON) with every secret of `auth` replaced. */
export function redactSecrets(value: unknown, auth: BedrockAuth): unknown {
  const secrets = secretsOf(auth).filter((secret) => secret.length >= 8);
  if (typeof value === "string") return secrets.reduce((text, secret) => text.replaceAll(secret, REDACTED), value);
  if (typeof value !== "object" || value === null) return value;
  const json = JSON.stringify(value);
  if (!secrets.some((secret) => json.includes(secret))) return value;
  return JSON.parse(secrets.reduce((text, secret) => text.replaceAll(secret, REDACTED), json)) as unknown;
}
