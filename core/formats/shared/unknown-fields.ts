/**
 * Warnings for a body's top-level fields its format does not know: accepted and ignored (clients send newer fields),
 * each named, so strict mode can refuse them (core/pipeline/strict/).
 */
import { warn, type Warning } from "../../model/warnings.ts";

export function unknownFieldWarnings(body: Record<string, unknown>, known: ReadonlySet<string>): Warning[] {
  const warnings: Warning[] = [];
  for (const key of Object.keys(body)) {
    if (!known.has(key)) warn(warnings, "unknown_field", key, `Unknown field \`${key}\` was ignored`);
  }
  return warnings;
}
