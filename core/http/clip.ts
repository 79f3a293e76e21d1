/**
 * Bounds on what the gateway repeats back or writes down of a client's strings: a 10 MB model
 * name used to come back whole in the 400's message and metadata, and whole in the log. Whatever a client sent is
 * echoed or logged at most `ECHO_MAX_CHARS` characters long, followed by an ellipsis.
 */

/** Characters of one client-supplied string that an error envelope or a log line repeats. */
export const ECHO_MAX_CHARS = 256;

/** An error message is our sentence plus an echoed value or two; longer ones are cut here. */
export const MESSAGE_MAX_CHARS = 1024;

/** Non-blank characters a message may hold in a row: a value at its longest and the quotes around it. */
const RUN_MAX_CHARS = ECHO_MAX_CHARS + 2;
/** A longer run: in a message, that is a client's value (with its quotes and punctuation). */
const LONG_RUN = new RegExp(`\\S{${RUN_MAX_CHARS + 1},}`, "g");

/** `text` itself when short enough, else its first `max` characters and "…" (never half a surrogate pair). */
export function clip(text: string, max = ECHO_MAX_CHARS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, cut)}…`;
}

/**
 * An error message with each over-long word (an echoed model name, plugin id, path) clipped like a value, and the
 * whole at most `MESSAGE_MAX_CHARS`. Messages are built around values at many places; this bounds them all at once.
 */
export function clipMessage(message: string): string {
  if (message.length <= ECHO_MAX_CHARS) return message;
  return clip(message.replace(LONG_RUN, (run) => clip(run, RUN_MAX_CHARS)), MESSAGE_MAX_CHARS);
}

/**
 * A copy of `value` with every string clipped (object keys too), or `value` itself when nothing was long — the
 * common case allocates nothing. Arrays keep every entry (a batch's 400 lists each bad request).
 */
export function clipStrings<T>(value: T, max = ECHO_MAX_CHARS): T {
  if (typeof value === "string") return clip(value, max) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const clipped = clipStrings(value[i], max);
      if (clipped !== value[i]) (copy ??= [...value])[i] = clipped;
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const clippedKey = clip(key, max);
    const clipped = clipStrings(record[key], max);
    if (clipped === record[key] && clippedKey === key) continue;
    copy ??= { ...record };
    if (clippedKey !== key) delete copy[key];
    copy[clippedKey] = clipped;
  }
  return (copy ?? value) as T;
}
