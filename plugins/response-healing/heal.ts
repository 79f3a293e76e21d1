/**
 * Turns a model's almost-JSON into JSON: the candidate texts a model wraps its JSON in (a markdown fence, prose
 * around an object, the whole reply) are tried in order, each parsed as is and otherwise repaired with `jsonrepair`
 * (trailing commas, unquoted keys, single quotes, missing brackets, comments…). The first candidate that yields an
 * object or array — and matches the schema, when one is given — wins. Pure: no I/O, no plugin context.
 */
import { jsonrepair } from "jsonrepair";

/** What was done to get valid JSON, in the order it happened (for `service_metadata`). */
export type Fix = "extracted_from_fence" | "extracted_from_prose" | "repaired_syntax";

export type HealResult =
  /** The text already was the JSON asked for. */
  | { kind: "valid" }
  | { kind: "healed"; json: string; fixes: Fix[] }
  /** Nothing usable: `reason` says why (unrepairable, not an object, or the schema's first complaint). */
  | { kind: "failed"; reason: string };

/** Checks a parsed value against the request's schema; returns the first problem, or undefined when it matches. */
export type SchemaCheck = (value: unknown) => string | undefined;

interface Candidate {
  text: string;
  fixes: Fix[];
}

export function heal(text: string, check?: SchemaCheck): HealResult {
  const trimmed = text.trim();
  const direct = parseStructured(trimmed);
  if (direct.ok) {
    const problem = check?.(direct.value);
    return problem === undefined ? { kind: "valid" } : { kind: "failed", reason: `the JSON does not match the schema: ${problem}` };
  }
  let reason = "no JSON object or array could be recovered";
  for (const candidate of candidatesOf(trimmed)) {
    const parsed = parseStructured(candidate.text);
    let value: unknown;
    let fixes = candidate.fixes;
    if (parsed.ok) value = parsed.value;
    else {
      const repaired = repair(candidate.text);
      if (repaired === undefined) continue;
      value = repaired;
      fixes = [...fixes, "repaired_syntax"];
    }
    if (!isStructured(value)) continue;
    const problem = check?.(value);
    if (problem !== undefined) {
      reason = `the repaired JSON does not match the schema: ${problem}`;
      continue;
    }
    return { kind: "healed", json: JSON.stringify(value), fixes };
  }
  return { kind: "failed", reason };
}

/**
 * Fenced blocks first (what the model marked as code), then the first bracketed value: from the first `{` or `[` to
 * where its brackets balance, or to the end when they never do (a cut reply). The whole text is never a candidate
 * by itself: jsonrepair reads prose on separate lines as newline-delimited values and would make an array of them.
 */
function candidatesOf(text: string): Candidate[] {
  const candidates: Candidate[] = [];
  for (const match of text.matchAll(/```[\w-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g)) {
    const body = match[1]!.trim();
    if (body !== "") candidates.push({ text: body, fixes: ["extracted_from_fence"] });
  }
  const start = text.search(/[[{]/);
  if (start >= 0) {
    const span = text.slice(start, balancedEnd(text, start)).trim();
    candidates.push({ text: span, fixes: span === text ? [] : ["extracted_from_prose"] });
  }
  return candidates;
}

/** The index just past the bracket that closes the one at `start` (strings skipped), or the text's length. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return i + 1;
  }
  return text.length;
}

function parseStructured(text: string): { ok: true; value: unknown } | { ok: false } {
  const first = text[0];
  if (first !== "{" && first !== "[") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function repair(text: string): unknown {
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}

/** `json_object` / `json_schema` output is an object (or an array): a bare string or number is not what was asked. */
function isStructured(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}
