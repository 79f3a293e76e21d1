/** SSE framing of the upstream wires, as each real API writes it (Bedrock's binary event stream beside them). */

import { encodeBedrockFrames } from "../fake-bedrock/event-stream.ts";

/** One event: `data` objects are JSON-encoded, strings (e.g. `[DONE]`) are sent as they are. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/**
 * `data`: `data: …\n\n` (OpenAI chat completions; `event` lines only when a frame names one).
 * `named`: `event: X\ndata: …\n\n` with X defaulting to `data.type` (Anthropic Messages, OpenAI Responses).
 * `crlf`: `data: …\r\n\r\n` (Google's `streamGenerateContent?alt=sse`).
 * `eventstream`: not SSE but AWS's binary event stream, one message per frame (Bedrock's ConverseStream;
 * test/support/fake-bedrock/event-stream.ts), the frame's `event` naming the member.
 */
export type SseStyle = "data" | "named" | "crlf" | "eventstream";

function dataOf(frame: SseFrame): string {
  return typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data);
}

/** One chunk per frame, so a pause can sit between any two frames. */
export function encodeFrames(frames: readonly SseFrame[], style: SseStyle): Array<string | Uint8Array> {
  if (style === "eventstream") return encodeBedrockFrames(frames);
  return frames.map((frame) => {
    const data = dataOf(frame);
    if (style === "crlf") return `data: ${data}\r\n\r\n`;
    const named = frame.event ?? (style === "named" && typeof frame.data === "object" && frame.data !== null ? String((frame.data as { type?: unknown }).type) : undefined);
    return named === undefined ? `data: ${data}\n\n` : `event: ${named}\ndata: ${data}\n\n`;
  });
}
