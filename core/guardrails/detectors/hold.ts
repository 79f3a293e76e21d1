/**
 * How much of a streamed text a detector must still see before what precedes is final (reference issue 15: "a
 * `redact` on output holds back only as much text as a pattern can span"). A finding can only begin inside the
 * text's last few tokens (an email or a key has no spaces; a phone number a few groups), so each built-in holds
 * back from the start of its last N whitespace-separated tokens, never more than its longest finding.
 */

/**
 * Offset where a finding spanning at most `tokens` whitespace-separated tokens may still begin in a growing `text`,
 * at most `maxChars` back: the token being written (empty when `text` ends with whitespace: the next character
 * starts a new one) and the `tokens - 1` before it.
 */
export function lastTokensStart(text: string, tokens: number, maxChars: number): number {
  const floor = Math.max(0, text.length - maxChars);
  let i = text.length;
  // The token being written.
  while (i > floor && !isSpace(text.charCodeAt(i - 1))) i--;
  for (let seen = 1; seen < tokens && i > floor; seen++) {
    while (i > floor && isSpace(text.charCodeAt(i - 1))) i--;
    while (i > floor && !isSpace(text.charCodeAt(i - 1))) i--;
  }
  return i;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11 || c === 0xa0;

/** Offset where the trailing run of characters `member` accepts begins, at most `maxChars` back. */
export function trailingRunStart(text: string, member: (c: number) => boolean, maxChars: number): number {
  const floor = Math.max(0, text.length - maxChars);
  let i = text.length;
  while (i > floor && member(text.charCodeAt(i - 1))) i--;
  return i;
}
