/**
 * A streamed reply's frames on their way to the first client, each added to the recording when that client's stream
 * pulls it (core/http/sse.ts pulls the next frame only once the last one was written). The recording is an observer
 * on the client's path, never a reader of its own: while the client reads nothing, nothing more is produced, so the
 * back-pressure toward the upstream and the write time-out (`server.stream_write_timeout_ms`) hold as without the
 * header.
 *
 * When the client goes (it left, or took nothing for the write time-out), the rest is read without it, since its
 * retry is coming for it (README "Idempotent requests": the client leaving does not stop the request), but only up
 * to the recording's cap: past it nothing would be kept for anyone, so the source is let go (the upstream cancelled,
 * its usage metered, the credit hold settled) instead of being read for nobody.
 */
import type { Recording } from "./recording.ts";

export class RecordedFrames implements AsyncIterable<string>, AsyncIterator<string> {
  private readonly source: AsyncIterator<string>;
  /** The pull in progress (the client's, or the drain's): the source is read by one at a time. */
  private reading: Promise<unknown> = Promise.resolve();
  private clientGone = false;

  constructor(
    frames: AsyncIterable<string>,
    private readonly recording: Recording,
  ) {
    this.source = frames[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return this;
  }

  next(): Promise<IteratorResult<string>> {
    const pulled = this.pull();
    this.reading = pulled.catch(() => undefined);
    return pulled;
  }

  /** The client's stream is done with its frames before their end: the rest is read for the retries. */
  async return(): Promise<IteratorResult<string>> {
    this.leave();
    return { done: true, value: undefined };
  }

  /** The client is gone (also before its stream pulled a first frame); reading goes on without it, up to the cap. */
  leave(): void {
    if (this.clientGone) return;
    this.clientGone = true;
    void this.drain();
  }

  private async pull(): Promise<IteratorResult<string>> {
    try {
      const result = await this.source.next();
      if (result.done) this.recording.end(true);
      else this.recording.add(result.value);
      return result;
    } catch (thrown) {
      this.recording.end(false);
      throw thrown;
    }
  }

  private async drain(): Promise<void> {
    await this.reading;
    try {
      while (!this.recording.ended) {
        if (this.recording.overCap) {
          this.recording.end(false);
          await this.source.return?.();
          return;
        }
        await this.pull();
      }
    } catch {
      // The source broke off: `pull` marked the recording, which is then not kept.
    }
  }
}
