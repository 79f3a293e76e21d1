/** SSE framing of the four upstream wires, as each real API writes it. */

/** One event: `data` objects are JSON-encoded, strings (e.g. `[DONE]`) are sent as they are. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/**
 * `data`: `data: …\n\n` (OpenAI chat completions; `event` lines only when a frame names one).
 * `named`: `event: X\ndata: …\n\n` with X defaulting to `data.type` (Anthropic Messages, OpenAI Responses).
 * `crlf`: `data: …\r\n\r\n` (Google's `streamGenerateContent?alt=sse`).
 */
export type SseStyle = "data" | "named" | "crlf";

function dataOf(frame: SseFrame): string {
  return typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data);
}

/** One string per frame, so a pause can sit between any two frames. */
export function encodeFrames(frames: readonly SseFrame[], style: SseStyle): string[] {
  return frames.map((frame) => {
    const data = dataOf(frame);
    if (style === "crlf") return `data: ${data}\r\n\r\n`;
    const named = frame.event ?? (style === "named" && typeof frame.data === "object" && frame.data !== null ? String((frame.data as { type?: unknown }).type) : undefined);
    return named === undefined ? `data: ${data}\n\n` : `event: ${named}\ndata: ${data}\n\n`;
  });
}
