/**
 * Cuts command output at `maxOutputBytes` (ExecOptions), on a UTF-8 character boundary so the kept part decodes
 * cleanly. Both backends use it: the model sees the same cut whichever runs its commands.
 */

/** The first `maxBytes` bytes of `bytes`, shortened to end on a whole UTF-8 character. */
export function cutUtf8(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.length <= maxBytes) return bytes;
  let end = Math.max(0, maxBytes);
  // Back off over continuation bytes (10xxxxxx) so a multi-byte character is dropped whole, never split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

export interface CappedText {
  text: string;
  truncated: boolean;
}

export function capText(text: string, maxBytes: number): CappedText {
  // Cheap exit for the common case: a string never takes more than 3 UTF-8 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  return { text: new TextDecoder().decode(cutUtf8(bytes, maxBytes)), truncated: true };
}

/**
 * Collects a stream's bytes up to a cap, counting (not keeping) the rest: a process that prints 10 MB is drained so
 * it never blocks on a full pipe, while the gateway holds at most `cap` bytes of it.
 */
export class CappedCollector {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  /** Every byte seen, kept or not. */
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    // Up to 3 bytes past the cap are kept so `text()` can tell whether the cap splits a character.
    const room = this.cap + 3 - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    // Copy: the stream may reuse its buffer for the next chunk.
    this.chunks.push(part.slice());
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.cap;
  }

  text(): string {
    const all = new Uint8Array(this.kept);
    let at = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(this.truncated ? cutUtf8(all, this.cap) : all);
  }
}
