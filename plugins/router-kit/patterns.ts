/**
 * Model patterns of the routers' `allowed_models` / `excluded_models` (spec "auto-beta-router plugin" and "Limits"):
 * `*` matches any run of characters (`acme/*`, `*-mini`, `*`), everything else matches itself, case-insensitively.
 * At most 1,024 patterns of at most 1,024 characters, 65,536 characters in all, per list. Matching is linear-time
 * (each pattern is split at its stars once; the pieces are found left to right), so no pattern can stall a request.
 */
import type { ModuleHelpers } from "../../core/sdk/index.ts";

export const PATTERN_LIMITS = { count: 1024, length: 1024, total: 65_536 } as const;

/** One compiled pattern: its star-separated pieces, lower-cased. */
export interface ModelPattern {
  readonly source: string;
  readonly pieces: readonly string[];
}

/**
 * Checks a list against the limits (the options schema has checked its shape and the first two already; the total
 * is checked here) and compiles it; undefined when absent.
 */
export function compilePatterns(list: unknown, field: string, helpers: ModuleHelpers): ModelPattern[] | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw invalid(helpers, field, "must be an array of model patterns");
  if (list.length > PATTERN_LIMITS.count) throw invalid(helpers, field, `at most ${PATTERN_LIMITS.count} patterns, got ${list.length}`);
  let total = 0;
  const out: ModelPattern[] = [];
  list.forEach((pattern, index) => {
    if (typeof pattern !== "string" || pattern.length === 0) throw invalid(helpers, `${field}[${index}]`, "must be a non-empty string");
    if (pattern.length > PATTERN_LIMITS.length) throw invalid(helpers, `${field}[${index}]`, `at most ${PATTERN_LIMITS.length} characters, got ${pattern.length}`);
    total += pattern.length;
    out.push({ source: pattern, pieces: pattern.toLowerCase().split("*") });
  });
  if (total > PATTERN_LIMITS.total) throw invalid(helpers, field, `at most ${PATTERN_LIMITS.total} characters in all, got ${total}`);
  return out;
}

/** Whether `id` matches `pattern`: the first piece is a prefix, the last a suffix, the others in order between. */
export function matchesPattern(pattern: ModelPattern, id: string): boolean {
  const text = id.toLowerCase();
  const pieces = pattern.pieces;
  if (pieces.length === 1) return text === pieces[0];
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    if (piece === "") continue;
    const found = text.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

export function matchesAny(patterns: readonly ModelPattern[], id: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, id));
}

/** Applies the lists: allowed first (when given), then excluded, so an exclusion always wins. */
export function filterByPatterns<T extends { id: string }>(items: readonly T[], allowed: readonly ModelPattern[] | undefined, excluded: readonly ModelPattern[] | undefined): T[] {
  return items.filter((item) => (!allowed || matchesAny(allowed, item.id)) && !(excluded && matchesAny(excluded, item.id)));
}

function invalid(helpers: ModuleHelpers, field: string, message: string) {
  return helpers.error("invalid_request", `${field}: ${message}`, { metadata: { param: field } });
}
