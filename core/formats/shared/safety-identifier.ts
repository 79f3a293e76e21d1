/** `safety_identifier` (spec): hashed in the decoder so the raw value never reaches an upstream, a log or a record. */
import { createHash } from "node:crypto";

/** SHA-256 hex of a safety identifier. */
export function hashSafetyIdentifier(raw: string): string {
  return createHash("sha256").update(raw, "utf8").digest("hex");
}
