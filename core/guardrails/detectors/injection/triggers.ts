/**
 * Where in a long text prompt injection could be, found in one cheap pass, so the pattern set (patterns.ts, about
 * 35 ns per character) runs only on windows around those places instead of the whole prompt. Every pattern of the
 * set contains at least one trigger: a word from `TRIGGER_WORDS`, a phrase or a punctuation mark of
 * `TRIGGER_MARKS`, or a run of spelled-out letters. Words are compared the way normalisation would read them —
 * letters case-folded, leetspeak digits as letters, look-alike and accented letters folded, invisible characters
 * skipped — and by their multiset of letters with the first and last fixed, so a scrambled word (typoglycemia)
 * triggers as its original does. A false trigger only costs a window's scan; a missed one would cost a detection,
 * which is why the comparison errs wide.
 */
import { codesOf } from "../codes.ts";
import { normalizeChar } from "./normalize.ts";

/**
 * The rarest word each pattern needs, in the forms the patterns use: see patterns.ts. Common words that some
 * pattern also contains (before, without, message, order…) are left out wherever the pattern needs a rarer one too.
 */
const TRIGGER_WORDS = (
  "ignore disregard forget instruction instructions prompt prompts rules directions guidelines directives commands orders constraints " +
  "programming training context messages guidance policy policies restrictions limitations configuration task goal purpose objective mission " +
  "job role instead mode override overrides bypass system reprogrammed updated reconfigured freed unlocked patched initial original hidden " +
  "secret internal developer confidential starting beginning starts base preprompt above repeat print output copy reproduce echo told " +
  "instructed programmed unrestricted uncensored unfiltered unbound unchained jailbroken jailbreak amoral evil malicious bound restricted limits " +
  "filter filters filtering guardrail guardrails safeguard safeguards censorship moderation ethics morals morality safety warnings disclaimers " +
  "refuse refusing refusals decline apologize apologise character dan boundaries protocols measures settings checks alignment assistant admin " +
  "root kernel security input"
).split(" ");

/**
 * Phrases and punctuation a pattern may need instead of a trigger word (tags, control tokens, "from now on"). A tag's
 * gaps are `\s*(?:\/\s*)?`, not `\s*\/?\s*`: two gaps in a row would try every split of a run of spaces.
 */
const TRIGGER_MARKS = /from\s*now\s*on|anything\s*now|say\s*no|<\s*(?:\/\s*)?[a-z|]|\[\s*(?:\/\s*)?[a-z]|##|<</gi;

/** A word's identity for triggering: length, first and last letter, and two sums over the middle letters. */
function keyOf(len: number, first: number, last: number, sum: number, squares: number): number {
  return (((len * 32 + (first - 96)) * 32 + (last - 96)) * 4096 + sum) * 1024 + (squares % 1024);
}

const KEYS = new Set<number>();
/** Lengths that some trigger starting with each letter has (bit `len` of entry `first - 97`). */
const PLAUSIBLE = new Uint32Array(26);
for (const word of TRIGGER_WORDS) {
  let sum = 0;
  let squares = 0;
  for (let i = 1; i < word.length - 1; i++) {
    const c = word.charCodeAt(i);
    sum += c;
    squares += c * c;
  }
  KEYS.add(keyOf(word.length, word.charCodeAt(0), word.charCodeAt(word.length - 1), sum, squares));
  PLAUSIBLE[word.charCodeAt(0) - 97]! |= 1 << Math.min(word.length, 31);
}

/** Leetspeak symbols read as letters (as normalize.ts reads them). */
const LEET = new Int32Array(128).fill(-1);
for (const [from, to] of Object.entries({ "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s", "!": "i" })) LEET[from.charCodeAt(0)] = to.charCodeAt(0);

/** Letter codes of ASCII characters (lower case, leetspeak read as letters), 0 for the rest. */
const LETTER = new Uint8Array(128);
for (let c = 65; c <= 90; c++) LETTER[c] = c | 0x20;
for (let c = 97; c <= 122; c++) LETTER[c] = c;

/** Offsets in `text` (of the original) where a trigger begins, in order. Hot: plain loops, no closures. */
export function triggerOffsets(text: string): number[] {
  const hits: number[] = [];
  let start = 0;
  let len = 0;
  let first = 0;
  let last = 0;
  let sum = 0;
  let squares = 0;
  /** Single-letter words in a row (`i g n o r e`), and where the run began. */
  let singles = 0;
  let singlesFrom = 0;
  const codes = codesOf(text);
  const n = codes.length;
  for (let i = 0; i <= n; i++) {
    let c = i < n ? codes[i]! : 32;
    let letter = 0;
    if (c < 128) {
      letter = LETTER[c]!;
      // Leetspeak inside a word, or starting one that goes on with a letter.
      if (letter === 0 && LEET[c]! >= 0 && (len > 0 || (i + 1 < n && codes[i + 1]! < 128 && LETTER[codes[i + 1]!]! !== 0))) letter = LEET[c]!;
    } else {
      if (c >= 0xd800 && c <= 0xdbff) c = text.codePointAt(i)!;
      const folded = normalizeChar(c);
      if (c > 0xffff) i++;
      if (folded === "") continue; // invisible: the word goes on
      const f = folded.length === 1 ? folded.charCodeAt(0) : 0;
      letter = f > 0 && f < 128 ? LETTER[f]! : 0;
      if (letter === 0 && folded.length > 1) {
        // A ligature or compatibility form of several letters: each counts.
        for (let k = 0; k < folded.length; k++) {
          const l = LETTER[folded.charCodeAt(k) & 127]!;
          if (l === 0) continue;
          if (len === 0) (start = i), (first = l), (sum = 0), (squares = 0);
          else (sum += l), (squares += l * l);
          last = l;
          len++;
        }
        continue;
      }
    }
    if (letter !== 0) {
      if (len === 0) (start = i), (first = letter), (sum = 0), (squares = 0);
      else (sum += letter), (squares += letter * letter);
      last = letter;
      len++;
      continue;
    }
    // A word ended (or there was none).
    if (len === 1) {
      if (singles === 0) singlesFrom = start;
      if (++singles === 3) hits.push(singlesFrom);
    } else if (len > 1) {
      singles = 0;
      if (len < 32 && (PLAUSIBLE[first - 97]! & (1 << len)) !== 0) {
        // The sums ran over every letter after the first: take the last one out.
        if (KEYS.has(keyOf(len, first, last, sum - last, squares - last * last))) hits.push(start);
      }
    }
    len = 0;
    // Only single spaces separate spelled-out letters; a wider gap or any other mark ends the run.
    if (c !== 32 || (i > 0 && codes[i - 1] === 32)) singles = 0;
  }
  TRIGGER_MARKS.lastIndex = 0;
  for (let m = TRIGGER_MARKS.exec(text); m !== null; m = TRIGGER_MARKS.exec(text)) hits.push(m.index);
  return hits.sort((a, b) => a - b);
}

/** Merged windows `[start, end)` around the triggers: far enough either side for any pattern's whole match. */
export function triggerWindows(text: string, before = 200, after = 240): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  for (const at of triggerOffsets(text)) {
    const start = Math.max(0, at - before);
    const end = Math.min(text.length, at + after);
    const lastWindow = windows[windows.length - 1];
    if (lastWindow && start <= lastWindow[1]) lastWindow[1] = Math.max(lastWindow[1], end);
    else windows.push([start, end]);
  }
  return windows;
}
