/**
 * An exact prefilter for the pattern set (patterns.ts): one pass over the normalised text that says whether any
 * pattern could match at all, so a text without what every pattern needs skips the set (about 45 ns a character)
 * and the answer does not change. Each alternative of the set needs, case-insensitively, at least one of the
 * literals below (the rarest of its mandatory word lists, read as substrings, which is wider than the words the
 * pattern requires, so never narrower); a tag or control token needs `<`, or `[` and one of its tag names. DAN is
 * case-sensitive and needs `DAN` or `nything`. In the regexes' case-insensitive non-Unicode mode no non-ASCII
 * character matches an ASCII letter, so ASCII case folding is the whole comparison. A change to patterns.ts must
 * keep every alternative covered: test/unit/guardrails/detectors/injection-prefilter.test.ts runs the set with
 * and without this on every known positive and negative and on texts made of the patterns' own words.
 */

/** Literals any of which lets some pattern of the combined set match (lower case). */
const ANY = [
  // instruction override: its nouns, the verbs of "ignore everything above", "instructions", "from now on", "your new
  // task", "instead follow"
  "instruction", "instructed", "prompt", "rules", "direction", "guideline", "directive", "command", "order", "constraint",
  "programm", "training", "context", "message", "guidance", "polic", "restriction", "limit", "system", "configuration",
  "ignore", "disregard", "forget", "from now on", "you", "instead", "rather",
  // developer mode, system override
  "mode", "override", "bypass", "reset", "update", "reconfigured", "freed", "unlocked", "patched",
  // prompt extraction: the qualifiers, "above / before / prior", "told / given"
  "initial", "original", "hidden", "secret", "internal", "developer", "confidential", "starting", "base",
  "above", "before", "prior", "told", "given",
  // role manipulation
  "unrestricted", "uncensored", "unfiltered", "amoral", "evil", "jailbroken", "not bound", "unchained", "filter", "moral",
  "ethic", "boundar", "without", "censorship", "character",
  // safety bypass: its verbs, "never refuse"
  "disable", "turn off", "remove", "circumvent", "deactivate", "switch off", "get around", "evade", "skip", "lift", "drop",
  "suspend", "break free", "escape", "refuse", "decline", "say no", "apologi",
  // tag spoofing: role lines, `##` headers, "end of system prompt"
  "assistant", "admin", "##", "input",
];
/** Tag names a `[…]` tag or control token needs besides the bracket (the rest are in ANY). */
const BRACKETED = ["inst", "sys", "bos", "eos", "sep", "cls"];

const LT = 60;
const BRACKET = 91;
/** Literals by their first two characters (ASCII, lower case): `c0 * 128 + c1` → index + 1 into `BY_PAIR`. */
const PAIR_INDEX = new Uint16Array(128 * 128);
const BY_PAIR: Array<Array<{ text: string; bracketed: boolean }>> = [];
for (const [list, bracketed] of [[ANY, false], [BRACKETED, true]] as const) {
  for (const text of list) {
    const key = text.charCodeAt(0) * 128 + text.charCodeAt(1);
    if (PAIR_INDEX[key] === 0) PAIR_INDEX[key] = BY_PAIR.push([]);
    BY_PAIR[PAIR_INDEX[key]! - 1]!.push({ text, bracketed });
  }
}

function lower(c: number): number {
  return c >= 65 && c <= 90 ? c | 0x20 : c;
}

/** Whether `text` (ASCII case-folded) holds `literal` at `at`. */
function holdsAt(text: string, at: number, literal: string): boolean {
  if (at + literal.length > text.length) return false;
  for (let k = 2; k < literal.length; k++) if (lower(text.charCodeAt(at + k)) !== literal.charCodeAt(k)) return false;
  return true;
}

/** False only when no pattern of the combined set can match normalised `text`. Hot: one pass, no allocation. */
export function injectionMayMatch(text: string): boolean {
  let bracket = false;
  let bracketed = false;
  const n = text.length;
  let c1 = n > 0 ? lower(text.charCodeAt(0)) : 0;
  for (let i = 0; i < n; i++) {
    const c0 = c1;
    c1 = i + 1 < n ? lower(text.charCodeAt(i + 1)) : 0;
    if (c0 >= 128 || c1 >= 128) continue;
    if (c0 === LT) return true;
    if (c0 === BRACKET) bracket = true;
    const entry = PAIR_INDEX[c0 * 128 + c1]!;
    if (entry === 0) continue;
    for (const literal of BY_PAIR[entry - 1]!) {
      if (!holdsAt(text, i, literal.text)) continue;
      if (!literal.bracketed) return true;
      bracketed = true;
    }
  }
  return bracket && bracketed;
}

/** False only when the case-sensitive DAN pattern cannot match `text`. */
export function danMayMatch(text: string): boolean {
  return text.includes("DAN") || text.includes("nything");
}
