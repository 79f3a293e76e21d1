/**
 * What an idempotent request's run is handed (core/idempotency/service.ts): the client's format with its stream
 * passing through the recording, and the pipeline's outcome watched for an in-band failure (such a reply is not kept).
 */
import type { WireFormat } from "../formats/format.ts";
import type { Outcome } from "../pipeline/outcome.ts";
import { RecordedFrames } from "./recorded-frames.ts";
import { Recording } from "./recording.ts";

export class ReplyRecorder {
  readonly recording: Recording;
  /** The stream ended in an in-band error: the reply goes to its readers as it was, but is not kept. */
  failed = false;
  private frames: RecordedFrames | undefined;

  constructor(maxBytes: number, onOverCap: () => void) {
    this.recording = new Recording(maxBytes, onOverCap);
  }

  /** True once the reply's frames go through the recording (the reply is a stream). */
  get recorded(): boolean {
    return this.frames !== undefined;
  }

  /** `format`, whose event stream is recorded as its client pulls it. */
  format(format: WireFormat): WireFormat {
    const recorded: WireFormat = {
      ...format,
      stream: (events, ctx) => {
        // One reply, one stream: a second one (no renderer makes it) would be a reply of unknown shape, so not kept.
        if (this.frames) {
          this.failed = true;
          return format.stream(events, ctx);
        }
        const frames = new RecordedFrames(format.stream(events, ctx), this.recording);
        this.frames = frames;
        return frames;
      },
    };
    return Object.freeze(recorded);
  }

  /**
   * The outcome, watched for an in-band error; abandoning it unread (its client left before the first frame) lets the
   * recording read it on instead of releasing it, like a client that leaves later (core/idempotency/recorded-frames.ts).
   */
  outcome(outcome: Outcome): Outcome {
    if (outcome.kind !== "stream") return outcome;
    outcome.observe({
      event: (event) => {
        if (event.type === "error") this.failed = true;
        return event;
      },
      fail: () => (this.failed = true),
      end: () => {},
    });
    return {
      ...outcome,
      abandon: () => {
        if (this.frames) this.frames.leave();
        else outcome.abandon();
      },
    };
  }
}
