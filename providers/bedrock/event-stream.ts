/**
 * ConverseStream's body: AWS's binary event stream (`application/vnd.amazon.eventstream`). Each message is framed by
 * its total length (a 4-byte prelude) and decoded with AWS's own codec (`@smithy/eventstream-codec`: prelude and
 * message CRC32 checked, headers parsed); its `:message-type` says whether it is an event (`:event-type` names the
 * ConverseStream member), an exception in the middle of the stream (`:exception-type`), or a generic error
 * (`:error-code`, `:error-message`). Messages are yielded as their bytes complete, holding at most one partial message;
 * a length beyond AWS's 16 MB cap, a bad checksum or a cut message is a `FramingError`.
 */
import { EventStreamCodec, type Message } from "@smithy/eventstream-codec";

/** One decoded message of the stream. */
export interface StreamMessage {
  /** `event`, `exception` or `error`. */
  messageType: string;
  /** The event's or exception's name (`contentBlockDelta`, `throttlingException`); the error code of an `error`. */
  name: string;
  /** The JSON payload (undefined when it is not JSON); an `error` message's `{message}` from its headers. */
  payload: unknown;
}

/** The stream's bytes are not a well-formed event stream. */
export class FramingError extends Error {
  override readonly name = "FramingError";
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
/**
 * The codec's text conversions are the platform's TextDecoder and TextEncoder (half its decoding time under Bun, next
 * to `@smithy/util-utf8`'s Buffer-based ones; `bun bench/cloud-adapter-cpu.ts`).
 */
const codec = new EventStreamCodec(
  (bytes: Uint8Array) => utf8.decode(bytes),
  (text: string) => utf8Encoder.encode(text),
);
/** AWS's event-stream limits: 16 MB a message; 16 bytes of prelude and checksums at least. */
const MAX_MESSAGE = 16 * 1024 * 1024 + 128 * 1024;
const MIN_MESSAGE = 16;

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name];
  return value?.type === "string" ? value.value : undefined;
}

function decoded(bytes: Uint8Array): StreamMessage {
  let message: Message;
  try {
    message = codec.decode(bytes);
  } catch (thrown) {
    throw new FramingError(thrown instanceof Error ? thrown.message : "undecodable event-stream message");
  }
  const messageType = header(message, ":message-type") ?? "event";
  if (messageType === "error") {
    return { messageType, name: header(message, ":error-code") ?? "", payload: { message: header(message, ":error-message") } };
  }
  const name = (messageType === "exception" ? header(message, ":exception-type") : header(message, ":event-type")) ?? "";
  let payload: unknown;
  try {
    payload = message.body.byteLength === 0 ? {} : JSON.parse(utf8.decode(message.body));
  } catch {
    payload = undefined;
  }
  return { messageType, name, payload };
}

/**
 * The messages of an event-stream body, in order. Stopping early (`break`, `return()`) cancels the body, which aborts
 * the upstream fetch; a read failure is rethrown as it came (the caller classifies it).
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamMessage, void, undefined> {
  const reader = body.getReader();
  const framer = new Framer();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const message of framer.push(value)) yield decoded(message);
    }
    if (framer.partial()) throw new FramingError("the stream ended inside a message");
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Cuts bytes into whole messages in one pass: a message inside one chunk is a view of it (no copy); one spread over
 * chunks is copied once into a buffer of its announced length.
 */
class Framer {
  private readonly prelude = new Uint8Array(4);
  private preludeFilled = 0;
  private current: Uint8Array | undefined;
  private filled = 0;

  *push(chunk: Uint8Array): Generator<Uint8Array> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      if (this.current === undefined) {
        if (this.preludeFilled === 0 && chunk.byteLength - offset >= 4) {
          const length = checkedLength(new DataView(chunk.buffer, chunk.byteOffset + offset, 4).getUint32(0, false));
          if (chunk.byteLength - offset >= length) {
            yield chunk.subarray(offset, offset + length);
            offset += length;
            continue;
          }
          this.current = new Uint8Array(length);
          this.filled = 0;
        } else {
          const take = Math.min(4 - this.preludeFilled, chunk.byteLength - offset);
          this.prelude.set(chunk.subarray(offset, offset + take), this.preludeFilled);
          this.preludeFilled += take;
          offset += take;
          if (this.preludeFilled < 4) return;
          this.current = new Uint8Array(checkedLength(new DataView(this.prelude.buffer).getUint32(0, false)));
          this.current.set(this.prelude, 0);
          this.filled = 4;
          this.preludeFilled = 0;
          continue;
        }
      }
      const take = Math.min(this.current.byteLength - this.filled, chunk.byteLength - offset);
      this.current.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.current.byteLength) {
        const whole = this.current;
        this.current = undefined;
        yield whole;
      }
    }
  }

  /** Bytes of an unfinished message are held. */
  partial(): boolean {
    return this.current !== undefined || this.preludeFilled > 0;
  }
}

function checkedLength(length: number): number {
  if (length < MIN_MESSAGE || length > MAX_MESSAGE) throw new FramingError(`event-stream message length ${length} out of bounds`);
  return length;
}
