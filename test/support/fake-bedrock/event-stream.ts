/**
 * Bedrock's `application/vnd.amazon.eventstream` framing, written as AWS writes it (with AWS's own codec,
 * `@smithy/eventstream-codec`): one binary message per event, its headers `:event-type` (the ConverseStream member,
 * `contentBlockDelta`, …), `:content-type: application/json` and `:message-type: event`, its payload the member's
 * JSON. An exception in the middle of a stream (`throttlingException`, `modelStreamErrorException`, …) is a message
 * with `:message-type: exception` and `:exception-type` naming it, its payload `{"message": …}`.
 */
import { EventStreamCodec, type MessageHeaders } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

/** One ConverseStream event: a member name and its payload (an exception when the name ends in `Exception`). */
export interface BedrockFrame {
  event?: string;
  data: unknown;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** True for the members AWS sends as exception messages. */
export function isExceptionEvent(name: string): boolean {
  return name.endsWith("Exception");
}

/** One frame as its binary message. */
export function encodeBedrockFrame(frame: BedrockFrame): Uint8Array {
  const name = frame.event ?? "";
  const str = (value: string) => ({ type: "string" as const, value });
  const headers: MessageHeaders = isExceptionEvent(name)
    ? { ":message-type": str("exception"), ":exception-type": str(name), ":content-type": str("application/json") }
    : { ":message-type": str("event"), ":event-type": str(name), ":content-type": str("application/json") };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(frame.data)) });
}

/** Every frame as its own message, so a pause or a cut can sit between any two. */
export function encodeBedrockFrames(frames: readonly BedrockFrame[]): Uint8Array[] {
  return frames.map(encodeBedrockFrame);
}
