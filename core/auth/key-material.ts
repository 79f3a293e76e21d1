/** API key secrets: generation, hashing (one SHA-256 per check) and constant-time comparison. */
import { randomBytes } from "node:crypto";

const PREFIX = "sk-gw-v1-";

/** A new secret; only its hash is ever stored. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

/** SHA-256 hex of a secret: the key's stored identity (`hash`). */
export function hashSecret(secret: string): string {
  return new Bun.CryptoHasher("sha256").update(secret).digest("hex");
}

/** A non-secret hint for listings: prefix and a few characters of each end. */
export function labelOf(secret: string): string {
  const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return `${PREFIX}${body.slice(0, 3)}...${body.slice(-3)}`;
}

/**
 * Constant-time equality of two digests, compared as text (non-hex input must never decode to equal bytes): every
 * character is visited whatever differs, with no early exit and no allocation on the per-request path.
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
