/**
 * A one-reader queue that turns pushes from concurrent work (the panel's models drafting at once) into one async
 * stream, in the order things happened: the fusion phase is relayed as it goes, never collected first.
 */
export class Channel<T> implements AsyncIterable<T> {
  private readonly queued: T[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(value: T): void {
    if (this.closed) return;
    this.queued.push(value);
    this.wake?.();
  }

  /** No more values: the reader ends after the queued ones. */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      while (this.queued.length > 0) yield this.queued.shift() as T;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
