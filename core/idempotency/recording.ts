/**
 * A streamed reply as it is produced, kept whole for the retries of an idempotent request: each reader gets every
 * chunk from the first one — what was recorded so far at once, then the rest as it arrives — so a retry that joins
 * a running stream receives the same events as the first client. The recording is needed anyway (it is what gets
 * stored for later retries), so readers add no copy of their own.
 */
const utf8 = new TextDecoder();

export class Recording {
  private readonly chunks: Uint8Array[] = [];
  private readonly waiting = new Set<() => void>();
  private size = 0;
  private ended = false;
  /** The source broke off (it threw): the recording is not a whole reply. */
  broken = false;

  /** Reads `source` to its end, whoever reads the recording (a reader that leaves does not stop it). */
  async record(source: ReadableStream<Uint8Array>): Promise<void> {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.chunks.push(value);
        this.size += value.byteLength;
        this.wake();
      }
    } catch {
      this.broken = true;
    } finally {
      this.ended = true;
      this.wake();
    }
  }

  /** The whole reply as text (once recorded). */
  text(): string {
    return utf8.decode(Buffer.concat(this.chunks, this.size));
  }

  /** A fresh reader from the first chunk on. */
  reader(): ReadableStream<Uint8Array> {
    let next = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (next >= this.chunks.length && !this.ended) await new Promise<void>((resolve) => this.waiting.add(resolve));
        if (next < this.chunks.length) {
          // Everything available in one chunk: a late joiner catches up in one write.
          const available = this.chunks.slice(next);
          next = this.chunks.length;
          controller.enqueue(available.length === 1 ? available[0]! : Buffer.concat(available));
          return;
        }
        controller.close();
      },
    });
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
