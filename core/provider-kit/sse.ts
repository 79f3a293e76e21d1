/**
 * Incremental Server-Sent Events parser (WHATWG HTML "event stream interpretation"), shared by every adapter whose
 * upstream streams SSE (the adapter turns them into canonical events).
 *
 * It holds at most the current partial line plus the data lines of the event being assembled, so a long stream
 * never accumulates in memory, and it yields each event as soon as its terminating blank line arrives.
 */

/**
 * One dispatched SSE event. `event` is absent for the default `message` type; `id` is the last event id the upstream
 * set (it persists across events, as the spec's "last event ID buffer" does).
 */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** The decoder's options for every read but the last (one object, not one per read). */
const STREAMING = { stream: true } as const;

/** Assembles fields of one event across lines; reset after each dispatch. */
class EventAssembler {
  /** The first data line, and the rest only when there are several (almost every event has exactly one). */
  private data: string | undefined;
  private moreData: string[] | undefined;
  private event: string | undefined;
  private id: string | undefined;

  /** Applies one complete line; returns an event when the line was the blank dispatch line. */
  line(line: string): SseEvent | undefined {
    if (line === "") return this.dispatch();
    // The common case first: `data: {...}`.
    if (line.startsWith("data:")) {
      this.addData(line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5));
      return undefined;
    }
    // Comment lines (keep-alives such as `: PROCESSING`) carry nothing.
    if (line.charCodeAt(0) === 0x3a) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case "data":
        // `data` with no colon: an empty data line.
        this.addData(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        // The spec ignores ids containing NUL.
        if (!value.includes("\0")) this.id = value;
        break;
      default:
        // `retry` and unknown fields do not matter to a one-shot upstream call.
        break;
    }
    return undefined;
  }

  /** Ends the event; events without data lines are dropped, as the spec says. */
  dispatch(): SseEvent | undefined {
    const { data, moreData, event, id } = this;
    this.data = undefined;
    this.moreData = undefined;
    this.event = undefined;
    if (data === undefined) return undefined;
    const out: SseEvent = { data: moreData === undefined ? data : [data, ...moreData].join("\n") };
    if (event !== undefined && event !== "") out.event = event;
    if (id !== undefined) out.id = id;
    return out;
  }

  /** One `data` line's value. */
  addData(value: string): void {
    if (this.data === undefined) this.data = value;
    else (this.moreData ??= []).push(value);
  }
}

/**
 * Parses a byte stream into SSE events. Lines end with LF, CRLF or a lone CR (a CRLF split across two chunks is
 * recognised). Bytes are decoded with a streaming TextDecoder so multi-byte characters may straddle chunks; the
 * decoder also drops a leading BOM. At end of stream, an event whose lines were all complete is dispatched (lenient:
 * some servers omit the final blank line); a trailing partial line is discarded because it may be truncated.
 *
 * Stopping iteration early (`break`, `return()`) cancels the underlying stream, which aborts an upstream fetch.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const assembler = new EventAssembler();
  let partial = "";
  // A chunk ending in CR: if the next chunk starts with LF, that LF belongs to the same line break.
  let skipLeadingLf = false;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let text = decoder.decode(value, STREAMING);
      if (skipLeadingLf && text.length > 0) {
        if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
        skipLeadingLf = false;
      }
      let start = 0;
      if (text.indexOf("\r") === -1) {
        // LF-only text (what every provider sends): native indexOf instead of a loop over characters.
        for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
          let event: SseEvent | undefined;
          if (partial !== "") {
            event = assembler.line(partial + text.slice(start, i));
            partial = "";
          } else if (i === start) event = assembler.dispatch();
          // The common line, read in place: no string made for the line itself, only for its data.
          else if (text.startsWith("data: ", start)) assembler.addData(text.slice(start + 6, i));
          else event = assembler.line(text.slice(start, i));
          start = i + 1;
          if (event) yield event;
        }
      } else {
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (c !== 0x0a && c !== 0x0d) continue;
          const line = partial + text.slice(start, i);
          partial = "";
          if (c === 0x0d) {
            if (i + 1 < text.length) {
              if (text.charCodeAt(i + 1) === 0x0a) i++;
            } else skipLeadingLf = true;
          }
          start = i + 1;
          const event = assembler.line(line);
          if (event) yield event;
        }
      }
      partial = start === 0 ? partial + text : partial + text.slice(start);
    }
    const tail = decoder.decode();
    // A trailing partial line may be cut mid-JSON, so only complete lines count; flush what they built.
    if (tail === "" && partial === "") {
      const event = assembler.dispatch();
      if (event) yield event;
    }
    finished = true;
  } finally {
    if (!finished) {
      // The consumer stopped early or reading failed: release the upstream connection.
      await reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
  }
}
