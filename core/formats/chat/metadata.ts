/** The `metadata` rules (spec "Limits": at most 16 pairs, keys ≤64 characters without brackets, values ≤512). */
import { errors, type GatewayError } from "../../errors.ts";

const MAX_PAIRS = 16;
const MAX_KEY = 64;
const MAX_VALUE = 512;

function invalid(message: string): GatewayError {
  return errors.invalid(message, { param: "metadata" });
}

/**
 * Defence in depth behind the schema (which enforces the same rules): a caller that decodes without the compiled
 * schema still gets a 400 that names the offending key. Lengths count characters (code points), as the spec words it.
 */
export function checkMetadata(metadata?: Record<string, unknown> | null): Record<string, string> | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  const entries = Object.entries(metadata);
  if (entries.length > MAX_PAIRS) {
    throw invalid(`\`metadata\` has ${entries.length} pairs; at most ${MAX_PAIRS} are allowed`);
  }
  const out: Record<string, string> = {};
  for (const [key, value] of entries) {
    const shown = key.length > 80 ? `${key.slice(0, 80)}…` : key;
    if ([...key].length > MAX_KEY) throw invalid(`\`metadata\` key "${shown}" is longer than ${MAX_KEY} characters`);
    if (key.includes("[") || key.includes("]")) throw invalid(`\`metadata\` key "${shown}" must not contain brackets`);
    if (typeof value !== "string") throw invalid(`\`metadata\` value of key "${shown}" must be a string`);
    if ([...value].length > MAX_VALUE) {
      throw invalid(`\`metadata\` value of key "${shown}" is longer than ${MAX_VALUE} characters`);
    }
    out[key] = value;
  }
  return out;
}
