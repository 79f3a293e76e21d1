/**
 * A streamed reply as it goes out, kept for the retries of an idempotent request (README "Idempotent requests"):
 * each reader gets every frame from the first one — what was recorded so far at once, then the rest as it comes — so
 * a retry that joins a running stream receives the same events as the first client. The frames are the ones the
 * first client's stream pulled (core/idempotency/recorded-frames.ts): the recording never reads anything itself.
 *
 * At most `maxBytes` are kept: one frame more and the recording drops what it held and keeps nothing from then on —
 * the reply will not be replayed (a retry runs again), and its readers fail rather than end on a truncated answer.
 */
const encoder = new TextEncoder();

/** Default of config `idempotency.max_reply_bytes`: the most one recorded reply keeps in memory and in the store. */
export const DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024;

export class Recording {
  private frames: string[] = [];
  private bytes = 0;
  private readonly waiting = new Set<() => void>();
  private settle!: () => void;
  /** Past the cap: nothing is kept, and nothing more is recorded. */
  overCap = false;
  ended = false;
  /** Ended with the reply's last frame, under the cap (a source that broke off, or was let go, is not whole). */
  whole = false;
  /** Resolves once the recording ended, however. */
  readonly finished = new Promise<void>((resolve) => (this.settle = resolve));

  /** `onOverCap` runs once, when the reply passes the cap (the key need not wait for its end to be free again). */
  constructor(
    private readonly maxBytes: number,
    private readonly onOverCap: () => void = () => {},
  ) {}

  add(frame: string): void {
    if (this.overCap || this.ended) return;
    this.bytes += Buffer.byteLength(frame);
    if (this.bytes > this.maxBytes) {
      this.overCap = true;
      this.frames = [];
      this.wake();
      this.onOverCap();
      return;
    }
    this.frames.push(frame);
    this.wake();
  }

  end(whole: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.whole = whole && !this.overCap;
    this.wake();
    this.settle();
  }

  /** The whole reply, when it ended whole under the cap; otherwise nothing is to be kept. */
  kept(): string | undefined {
    return this.whole ? this.frames.join("") : undefined;
  }

  /**
   * A fresh reader from the first frame on, or undefined once the reply is past the cap (there is nothing to read
   * from). A reader whose reply passes the cap, or breaks off, fails: its client sees a dropped stream, not an end.
   */
  reader(): ReadableStream<Uint8Array> | undefined {
    if (this.overCap) return undefined;
    let next = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (next >= this.frames.length && !this.ended && !this.overCap) await new Promise<void>((resolve) => this.waiting.add(resolve));
        if (this.overCap) return controller.error(new Error("the reply passed the idempotency recording cap"));
        if (next < this.frames.length) {
          // Everything available in one chunk: a late joiner catches up in one write.
          const available = next === this.frames.length - 1 ? this.frames[next]! : this.frames.slice(next).join("");
          next = this.frames.length;
          controller.enqueue(encoder.encode(available));
          return;
        }
        if (!this.whole) return controller.error(new Error("the recorded reply broke off"));
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
