/**
 * `regex-prompt-injection`: the curated pattern set (patterns.ts) on normalised text
 * (normalize.ts), around the places a cheap pass found triggers (triggers.ts), plus encoded payloads: runs of base64
 * or hex that decode to readable text are decoded and matched too (`base64_encoded_injection`,
 * `hex_encoded_injection`), the finding being the encoded run. Which messages it reads (`scan_scope` user_only |
 * all_messages) is decided by the caller; this sees one text.
 */
import { lastTokensStart } from "../hold.ts";
import { alphabetRuns } from "../runs.ts";
import type { Detector, Finding } from "../types.ts";
import { normalize, originalSpan } from "./normalize.ts";
import { matchInjection } from "./patterns.ts";
import { triggerWindows } from "./triggers.ts";

const HEX_SPACED_HINT = /[0-9a-fA-F]{2}[ :][0-9a-fA-F]{2}[ :][0-9a-fA-F]{2}|\\x[0-9a-fA-F]{2}\\x/;
const HEX_SPACED = /(?:[0-9a-fA-F]{2}[ :]){11,}[0-9a-fA-F]{2}|(?:\\x[0-9a-fA-F]{2}){12,}/g;

/** Decoded bytes as text when they are mostly printable ASCII (an attack is written to be read by the model). */
function readable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 12) return undefined;
  let printable = 0;
  for (const b of bytes) if ((b >= 32 && b < 127) || b === 10 || b === 9) printable++;
  if (printable / bytes.length < 0.9) return undefined;
  return new TextDecoder().decode(bytes);
}

function fromBase64(run: string): string | undefined {
  try {
    return readable(Buffer.from(run.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
  } catch {
    return undefined;
  }
}

function fromHex(run: string): string | undefined {
  const digits = run.replace(/\\x|[ :]/g, "");
  if (digits.length % 2 !== 0) return undefined;
  return readable(Buffer.from(digits, "hex"));
}

/** Pattern findings in one piece of text, in its own offsets (normalised, then mapped back). */
function patternFindings(text: string, offset: number): Finding[] {
  const normalized = normalize(text);
  return matchInjection(normalized.text).map((m) => {
    const span = originalSpan(normalized, m.start, m.end);
    return { start: offset + span.start, end: offset + span.end, pattern: m.group };
  });
}

/**
 * Findings in one text, in original offsets: the pattern set on the windows around its triggers (triggers.ts),
 * then encoded payloads (a decoded payload is read whole).
 */
function findInjection(text: string, depth = 0): Finding[] {
  const found: Finding[] = [];
  for (const [start, end] of triggerWindows(text)) found.push(...patternFindings(text.slice(start, end), start));
  if (depth > 0) return found;
  for (const run of encodedRuns(text)) {
    const decoded = run.kind === "base64" ? fromBase64(run.text) : fromHex(run.text);
    if (decoded !== undefined && findInjection(decoded, depth + 1).length > 0) found.push({ start: run.start, end: run.start + run.text.length, pattern: `${run.kind}_encoded_injection` });
  }
  return found;
}

/** Maximal runs of the base64 alphabet (24 or more), and of hex bytes (12 or more, `\x`-escaped or spaced too). */
function encodedRuns(text: string): Array<{ kind: "base64" | "hex"; start: number; text: string }> {
  const runs: Array<{ kind: "base64" | "hex"; start: number; text: string }> = [];
  for (const run of alphabetRuns(text)) {
    const slice = text.slice(run.start, run.end);
    runs.push({ kind: /^[0-9a-fA-F]+$/.test(slice) && slice.length % 2 === 0 ? "hex" : "base64", start: run.start, text: slice });
  }
  // Hex with separators (`49 67 6e …`, `\x49\x67…`) is not one run of the alphabet: looked for only when present.
  if (HEX_SPACED_HINT.test(text)) {
    HEX_SPACED.lastIndex = 0;
    for (let m = HEX_SPACED.exec(text); m !== null; m = HEX_SPACED.exec(text)) runs.push({ kind: "hex", start: m.index, text: m[0] });
  }
  return runs;
}

export const promptInjection: Detector = {
  slug: "regex-prompt-injection",
  label: "PROMPT_INJECTION",
  engine: "regex",
  maxSpan: 600,
  // The longest match of the set spans 54 words (an override verb of three, six fillers and six qualifiers of up to
  // four, its noun of two: patterns.ts); a word spelled out letter by letter is one.
  holdFrom: (text) => lastTokensStart(text, 56, 600, true),
  find: (text) => findInjection(text),
};
