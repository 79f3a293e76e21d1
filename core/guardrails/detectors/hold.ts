/**
 * How much of a streamed text a detector must still see before what precedes is final (README "Guardrails": a
 * filter that acts on the answer holds back only as much text as a finding may still span). A finding can only
 * begin inside the text's last few tokens (an email or a key has no spaces; a phone number a few groups), so each
 * built-in holds back from the start of its last N whitespace-separated tokens, never more than its longest
 * finding. Characters are read as the detectors' matching view reads them (normalize.ts): a non-breaking space
 * separates tokens, a zero-width space inside a card number does not end its run of digits.
 */
import { isWhitespace, matchingChar } from "./normalize.ts";

/**
 * Offset where a finding spanning at most `tokens` whitespace-separated tokens may still begin in a growing `text`,
 * at most `maxChars` back: the token being written (empty when `text` ends with whitespace: the next character
 * starts a new one) and the `tokens - 1` before it. With `singlesFree`, one-character tokens are not counted (a
 * detector that joins spelled-out letters, `i g n o r e`, reads them as one word).
 */
export function lastTokensStart(text: string, tokens: number, maxChars: number, singlesFree = false): number {
  const floor = Math.max(0, text.length - maxChars);
  let i = text.length;
  // The token being written.
  while (i > floor && !isWhitespace(text.charCodeAt(i - 1))) i--;
  for (let seen = 1; seen < tokens && i > floor; ) {
    while (i > floor && isWhitespace(text.charCodeAt(i - 1))) i--;
    const end = i;
    while (i > floor && !isWhitespace(text.charCodeAt(i - 1))) i--;
    if (!singlesFree || end - i > 1) seen++;
  }
  return i;
}

/**
 * Offset where the trailing run of characters `member` accepts begins, at most `maxChars` back. A non-ASCII
 * character is read as the matching view reads it: invisible ones belong to any run, others by what they fold to.
 */
export function trailingRunStart(text: string, member: (c: number) => boolean, maxChars: number): number {
  const floor = Math.max(0, text.length - maxChars);
  let i = text.length;
  while (i > floor) {
    const c = text.charCodeAt(i - 1);
    if (c < 128) {
      if (!member(c)) break;
      i--;
      continue;
    }
    // A low surrogate: the code point starts one unit earlier.
    const pair = c >= 0xdc00 && c <= 0xdfff && i >= 2 ? text.codePointAt(i - 2)! : c;
    const width = pair > 0xffff ? 2 : 1;
    const folded = matchingChar(width === 2 ? pair : c);
    let all = true;
    for (let k = 0; k < folded.length && all; k++) all = member(folded.charCodeAt(k));
    if (!all) break;
    i -= width;
  }
  return Math.max(i, floor);
}
