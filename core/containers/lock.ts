/**
 * One operation at a time per container in this process. A command could otherwise swap a directory for a symlink
 * between a file operation's path check and its use (the tools of one request run concurrently); with commands and
 * file operations of a container taking turns, the checks in safe-path.ts hold while the operation runs.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await operation();
    } finally {
      release();
      // The last in line cleans up, so idle containers leave nothing behind.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
