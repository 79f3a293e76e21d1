/**
 * Per-request overrides for the simulator, written in the last user message:
 *
 *     [sim tokens=5 latency=200 delay=20 chunk=2 reasoning=3 status=503 cut=4]
 *
 * | key       | meaning                                                                  |
 * |-----------|--------------------------------------------------------------------------|
 * | tokens    | reply length in tokens (`output_tokens`)                                 |
 * | latency   | milliseconds before the reply starts (`latency_ms`)                      |
 * | delay     | milliseconds between stream chunks (`chunk_delay_ms`)                    |
 * | chunk     | tokens per stream chunk (`tokens_per_chunk`, ≥ 1)                        |
 * | reasoning | reasoning tokens emitted before the reply                                |
 * | status    | fail with this HTTP status (400–599) instead of replying (`fail_status`) |
 * | cut       | end the stream after N chunks with no finish and no [DONE] (fault tests) |
 *
 * Values are non-negative integers up to a cap per key (`DIRECTIVE_CAPS`: 100,000 tokens, 10 minutes of latency,
 * one minute between chunks). An unknown key, a bad value or one over its cap fails the request with a 400, so a
 * typo in a test is loud rather than silently ignored, and no request can make the simulator build an answer of
 * unbounded size.
 */

/** Overrides parsed from a directive. */
export interface Directive {
  tokens?: number;
  latency?: number;
  delay?: number;
  chunk?: number;
  reasoning?: number;
  status?: number;
  cut?: number;
}

const KEYS = new Set<keyof Directive>(["tokens", "latency", "delay", "chunk", "reasoning", "status", "cut"]);

/** The largest value each key takes; also the caps of the matching simulator options (options.ts). */
export const DIRECTIVE_CAPS: Readonly<Record<keyof Directive, number>> = Object.freeze({
  tokens: 100_000,
  reasoning: 100_000,
  chunk: 100_000,
  cut: 1_000_000,
  latency: 600_000,
  delay: 60_000,
  status: 599,
});
const PATTERN = /\[sim(?:\s+([^\]]*))?\]/;

/** Finds and parses the first `[sim …]` in `text`; throws a message string for a malformed one. */
export function parseDirective(text: string): Directive {
  const match = PATTERN.exec(text);
  if (match === null) return {};
  const out: Directive = {};
  for (const token of (match[1] ?? "").split(/\s+/).filter((t) => t !== "")) {
    const eq = token.indexOf("=");
    const key = token.slice(0, eq === -1 ? token.length : eq);
    const raw = eq === -1 ? "" : token.slice(eq + 1);
    if (!isKey(key)) throw new DirectiveError(`unknown simulator directive key "${key}"`);
    if (!/^\d+$/.test(raw)) throw new DirectiveError(`simulator directive ${key} needs a non-negative integer, got "${raw}"`);
    // Compared as text first: a thousand-digit number is refused without being converted.
    if (raw.length > 9 || Number(raw) > DIRECTIVE_CAPS[key]) throw new DirectiveError(`simulator directive ${key} must be at most ${DIRECTIVE_CAPS[key]}`);
    const value = Number(raw);
    if (key === "status" && (value < 400 || value > 599)) throw new DirectiveError("simulator directive status must be 400-599");
    if (key === "chunk" && value < 1) throw new DirectiveError("simulator directive chunk must be at least 1");
    out[key] = value;
  }
  return out;
}

/** A malformed directive; the front ends answer it with a 400. */
export class DirectiveError extends Error {
  override readonly name = "DirectiveError";
}

function isKey(key: string): key is keyof Directive {
  return KEYS.has(key as keyof Directive);
}
