/**
 * What the model is shown of a server tool's result: the result itself, except inline data meant for the client.
 * A generated image travels to the client as a `data:` URL of tens or hundreds of kilobytes; handed to the model as
 * text it would cost that many tokens and tell it nothing, so each such string is replaced by a short note of what
 * it was. The client's item keeps the data (the part's `result` is not changed). Applies to replayed results too.
 */

/** A base64 `data:` URL, with its media type. */
const INLINE_DATA = /^data:([^;,]+)(?:;[^;,]*)*;base64,/i;
/** Shorter data URLs (a tiny icon) cost little and are left alone. */
const KEEP_BELOW = 256;

/** The note that stands for one elided data URL. */
export function inlineDataNote(mediaType: string, bytes: number): string {
  return `[${mediaType}, ${bytes} bytes: delivered to the user, not shown to you]`;
}

/** `value` with every long base64 data URL replaced by its note; the same object when there is none. */
export function forModel(value: unknown): unknown {
  if (typeof value === "string") return elide(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const shown = forModel(item);
      if (shown !== item) (copy ??= [...value])[index] = shown;
    });
    return copy ?? value;
  }
  if (typeof value === "object" && value !== null) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const shown = forModel(item);
      if (shown !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = shown;
    }
    return copy ?? value;
  }
  return value;
}

function elide(text: string): string {
  if (text.length < KEEP_BELOW || !text.startsWith("data:")) return text;
  const match = INLINE_DATA.exec(text);
  if (!match) return text;
  const base64 = text.length - match[0].length;
  return inlineDataNote(match[1]!.toLowerCase(), Math.floor((base64 * 3) / 4));
}
