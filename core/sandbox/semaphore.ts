/** At most `size` holders at once; the rest wait in arrival order. Bounds the commands a backend runs together. */
export class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** Resolves with a release function once a place is free; rejects (and gives up its turn) if `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener("abort", onAbort);
        this.held++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(turn);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.waiting.shift()?.();
    };
  }
}
