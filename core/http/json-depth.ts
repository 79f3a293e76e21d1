/**
 * Nesting depth of a JSON text, measured on its raw UTF-8 bytes before anything parses or validates it.
 * Parsing and, above all, schema validation of deeply nested values cost far more than linear time: 40 KB of
 * `[[[[…` froze the whole process for seconds. Counting brackets outside strings is linear and cheap, so the edge can
 * refuse such a body after its first few dozen bytes.
 *
 * Works chunk by chunk (a streamed body is checked as it arrives). Scanning raw bytes is safe: every byte of a
 * multi-byte UTF-8 sequence is ≥ 0x80, so it is never mistaken for a bracket, a quote or a backslash.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  /** The previous byte was a backslash inside a string (the escape may straddle two chunks). */
  private escaped = false;

  constructor(private readonly maxDepth: number) {}

  /** Feeds the next bytes; false as soon as the nesting passes `maxDepth` (the scanner must not be fed again). */
  feed(bytes: Uint8Array): boolean {
    const end = bytes.length;
    // Next quote and backslash at or after `at` (-1: none left in this chunk), searched again only once `at` has
    // passed them: every byte is searched over at most once per kind, so many escapes keep the scan linear.
    let quote = -2;
    let backslash = -2;
    let at = 0;
    while (at < end) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          at++;
          continue;
        }
        // Long strings (prompts, base64 images) are most of a body: jump over them with the native search rather
        // than a byte loop. Only a quote or a backslash can change the state inside a string.
        if (quote !== -1 && quote < at) quote = bytes.indexOf(QUOTE, at);
        if (backslash !== -1 && backslash < at) backslash = bytes.indexOf(BACKSLASH, at);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          this.escaped = true;
          at = backslash + 1;
        } else if (quote !== -1) {
          this.inString = false;
          at = quote + 1;
        } else {
          return true; // the string goes on in the next chunk
        }
        continue;
      }
      const byte = bytes[at++]!;
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++this.depth > this.maxDepth) return false;
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) this.depth--;
    }
    return true;
  }
}

/** True when `bytes` (a whole JSON text) nests no deeper than `maxDepth`. */
export function withinDepth(bytes: Uint8Array, maxDepth: number): boolean {
  return new JsonDepthScanner(maxDepth).feed(bytes);
}
