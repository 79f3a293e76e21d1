/**
 * The UTF-16 code units of a text in a typed array, for the detectors' hand-written scans: reading a typed array is
 * about twice as fast as `charCodeAt` in a loop, and for ASCII text (most prompts) the array is filled natively
 * (`encodeInto`: one byte per character, so offsets are the text's). Several detectors read the same text one after
 * the other, so the arrays of the last few texts are kept.
 */
const ASCII = /^[\x00-\x7f]*$/;
const encoder = new TextEncoder();
const recent: Array<{ text: string; codes: Uint8Array | Uint16Array }> = [];

let lastTested: string | undefined;
let lastAscii = false;

/** Whether `text` is plain ASCII; the answer for the last text is kept (the matching view asks it first, then this). */
export function isAscii(text: string): boolean {
  if (text === lastTested) return lastAscii;
  for (const entry of recent) if (entry.text === text) return entry.codes instanceof Uint8Array;
  lastAscii = ASCII.test(text);
  lastTested = text;
  return lastAscii;
}

export function codesOf(text: string): Uint8Array | Uint16Array {
  for (const entry of recent) if (entry.text === text) return entry.codes;
  let codes: Uint8Array | Uint16Array;
  if (isAscii(text)) {
    codes = new Uint8Array(text.length);
    encoder.encodeInto(text, codes);
  } else {
    codes = new Uint16Array(text.length);
    for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  }
  recent.unshift({ text, codes });
  if (recent.length > 4) recent.pop();
  return codes;
}
