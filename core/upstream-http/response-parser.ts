/**
 * Incremental HTTP/1.1 response parser (RFC 9112) for the upstream client: bytes in as the socket delivers them,
 * head and body out through a sink. Body bytes are handed on as views of the socket's own buffers (Bun gives every
 * `data` call a fresh one), so a relayed stream is never copied or re-chunked here.
 *
 * Framing, in RFC 9112 §6.3 order: no body for HEAD, 1xx, 204 and 304; `transfer-encoding: chunked`; then
 * `content-length`; otherwise the body runs until the connection closes (and the connection cannot be reused).
 */

export interface ResponseHead {
  status: number;
  statusText: string;
  /** In arrival order; names lower-cased. Repeated headers stay separate entries. */
  headers: Array<[string, string]>;
}

export interface ResponseSink {
  head(head: ResponseHead): void;
  body(bytes: Uint8Array): void;
  /** The response is complete; `reusable` says the connection may carry another request. */
  end(reusable: boolean): void;
}

/** A malformed or truncated response: the connection is unusable. `code` is what transport failures report. */
export class ResponseParseError extends Error {
  readonly code: string;
  constructor(message: string, code = "HPE_INVALID_RESPONSE") {
    super(message);
    this.name = "ResponseParseError";
    this.code = code;
  }
}

/** Heads and chunk-size lines longer than this are refused (a broken or hostile upstream, not a real API). */
export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 4096;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

const CR = 0x0d;
const LF = 0x0a;
const latin1 = new TextDecoder("latin1");
const EMPTY = new Uint8Array(0);

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

export class ResponseParser {
  private state = State.Head;
  /** The current chunk-size / trailer line, not yet complete. */
  private pending: Uint8Array | undefined;
  private remaining = 0;
  private keepAlive = false;
  private headChunks: Uint8Array[] = [];
  private headLength = 0;
  private headTail: Uint8Array = EMPTY;
  /** Progress through the current chunk-size line. */
  private readonly size = { digits: 0, lineLength: 0, ended: false, extension: false, cr: false };
  /** The message ended inside the current push; `end` is reported once the rest of that push was seen. */
  private endPending = false;

  constructor(
    private readonly sink: ResponseSink,
    private readonly isHead: boolean,
  ) {}

  push(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      switch (this.state) {
        case State.Head:
          offset = this.readHead(bytes, offset);
          break;
        case State.Length:
          offset = this.passBody(bytes, offset);
          if (this.remaining === 0) this.finish();
          break;
        case State.ChunkSize:
          offset = this.readChunkSize(bytes, offset);
          break;
        case State.Trailers:
          offset = this.readLine(bytes, offset);
          break;
        case State.ChunkData:
          offset = this.passBody(bytes, offset);
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        case State.ChunkDataEnd:
          offset = this.readChunkDataEnd(bytes, offset);
          break;
        case State.UntilClose:
          this.sink.body(offset === 0 ? bytes : bytes.subarray(offset));
          return;
        case State.Done:
          // Bytes after a complete response on a connection we did not pipeline on: never reuse it.
          this.keepAlive = false;
          offset = bytes.length;
          break;
      }
    }
    if (this.endPending) {
      this.endPending = false;
      this.sink.end(this.keepAlive);
    }
  }

  /** The connection closed: completes a close-delimited body, anything else unfinished is a truncated response. */
  close(): void {
    if (this.state === State.Done) return;
    if (this.state === State.UntilClose) {
      this.state = State.Done;
      this.sink.end(false);
      return;
    }
    throw new ResponseParseError(
      this.state === State.Head ? "upstream closed the connection before answering" : "upstream closed the connection mid-response",
      "ECONNRESET",
    );
  }

  /** Hands on up to `remaining` body bytes from `offset` (a view, not a copy); returns the new offset. */
  private passBody(bytes: Uint8Array, offset: number): number {
    const take = Math.min(this.remaining, bytes.length - offset);
    this.sink.body(bytes.subarray(offset, offset + take));
    this.remaining -= take;
    return offset + take;
  }

  /** Ends the message; `end` goes out when the current push is over (see endPending). */
  private finish(): void {
    this.state = State.Done;
    this.pending = undefined;
    this.endPending = true;
  }

  /**
   * Head bytes are kept as the pieces that arrived (joined once, when the head is complete), so a head that trickles
   * in byte by byte costs linear, not quadratic, copying; the last three bytes are kept apart to find a CRLFCRLF
   * that straddles two pieces.
   */
  private readHead(bytes: Uint8Array, offset: number): number {
    const rest = offset === 0 ? bytes : bytes.subarray(offset);
    const tail = this.headTail;
    const probe = tail.length > 0 ? concat([tail, rest], tail.length + rest.length) : rest;
    const found = indexOfHeadEnd(probe, 0);
    // The limit holds for the whole head (its CRLFCRLF included) however the bytes arrive: unterminated, it is at
    // least one byte longer than what is here.
    if (found === -1) {
      if (this.headLength + rest.length >= MAX_HEAD_BYTES) throw new ResponseParseError("upstream response head is too large", "HPE_HEADER_OVERFLOW");
      this.headChunks.push(rest.slice());
      this.headLength += rest.length;
      this.headTail = probe.slice(Math.max(0, probe.length - 3));
      return bytes.length;
    }
    const used = found + 4 - tail.length;
    if (this.headLength + used > MAX_HEAD_BYTES) throw new ResponseParseError("upstream response head is too large", "HPE_HEADER_OVERFLOW");
    this.headChunks.push(rest.subarray(0, used));
    const whole = concat(this.headChunks, this.headLength + used);
    this.headChunks = [];
    this.headLength = 0;
    this.headTail = EMPTY;
    this.parseHead(latin1.decode(whole.subarray(0, whole.length - 4)));
    return offset + used;
  }

  private parseHead(text: string): void {
    const lines = text.split("\r\n");
    const statusLine = lines[0] ?? "";
    const match = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(statusLine);
    if (!match) throw new ResponseParseError(`upstream sent an invalid status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
    const minor = match[1];
    const status = Number(match[2]);
    if (status < 100) throw new ResponseParseError(`upstream sent an invalid status: ${status}`);
    const headers: Array<[string, string]> = [];
    let chunked = false;
    let length: number | undefined;
    let connection = "";
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) throw new ResponseParseError("upstream sent an invalid header line");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.push([name, value]);
      if (name === "transfer-encoding") chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === "content-length") {
        if (!/^\d+$/.test(value)) throw new ResponseParseError("upstream sent an invalid content-length");
        const parsed = Number(value);
        if (length !== undefined && length !== parsed) throw new ResponseParseError("upstream sent conflicting content-length headers");
        length = parsed;
      } else if (name === "connection") connection = value.toLowerCase();
    }
    // 1xx (100 Continue, 103 Early Hints) precede the real answer; 101 would switch protocols, which we never ask for.
    if (status === 101) throw new ResponseParseError("upstream switched protocols (101) without being asked to");
    if (status >= 100 && status < 200) return;
    this.keepAlive = minor === "1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    this.sink.head({ status, statusText: match[3] ?? "", headers });
    if (this.isHead || status === 204 || status === 304) this.finish();
    else if (chunked) {
      this.remaining = 0;
      this.state = State.ChunkSize;
    }
    else if (length !== undefined) {
      this.remaining = length;
      if (length === 0) this.finish();
      else this.state = State.Length;
    } else {
      this.keepAlive = false;
      this.state = State.UntilClose;
    }
  }

  /** Chunk-size, chunk-end and trailer lines: short, so they are assembled as bytes and decoded once complete. */
  private readLine(bytes: Uint8Array, offset: number): number {
    let lf = bytes.indexOf(LF, offset);
    if (lf === -1) {
      this.pending = this.join(bytes, offset).slice();
      if (this.pending.length > MAX_LINE_BYTES) throw new ResponseParseError("upstream sent an over-long chunk line");
      return bytes.length;
    }
    const line = this.pending ? this.join(bytes, offset).subarray(0, this.pending.length + lf - offset) : bytes.subarray(offset, lf);
    // Same limit as for a line still incomplete, so a line's fate does not depend on how its bytes arrived.
    if (line.length > MAX_LINE_BYTES) throw new ResponseParseError("upstream sent an over-long chunk line");
    this.pending = undefined;
    const text = latin1.decode(line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line);
    lf += 1;
    // Trailer fields are not used by any API we call; the empty line ends the message.
    if (text === "") this.finish();
    return lf;
  }

  /**
   * The chunk-size line (`1a3;ext=v\r\n`), read byte by byte as it arrives: it comes before every chunk of every
   * stream, so it is parsed without assembling or decoding a line. Whitespace may surround the size; a CR must be
   * the last byte before the LF.
   */
  private readChunkSize(bytes: Uint8Array, offset: number): number {
    const size = this.size;
    for (let i = offset; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (++size.lineLength > MAX_LINE_BYTES + 1) throw new ResponseParseError("upstream sent an over-long chunk line");
      if (b === LF) {
        if (size.digits === 0) throw new ResponseParseError("upstream sent an invalid chunk size");
        this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
        size.digits = 0;
        size.lineLength = 0;
        size.ended = false;
        size.extension = false;
        size.cr = false;
        return i + 1;
      }
      if (size.cr) throw new ResponseParseError("upstream sent an invalid chunk size");
      if (b === CR) {
        size.cr = true;
        continue;
      }
      if (size.extension) continue;
      if (b === 0x3b) {
        size.extension = true;
        continue;
      }
      if (b === 0x20 || b === 0x09) {
        if (size.digits > 0) size.ended = true;
        continue;
      }
      const digit = hexValue(b);
      if (digit < 0 || size.ended || size.digits === 12) throw new ResponseParseError("upstream sent an invalid chunk size");
      this.remaining = this.remaining * 16 + digit;
      size.digits++;
    }
    return bytes.length;
  }

  /** The CRLF (or bare LF) that must follow a chunk's data. */
  private readChunkDataEnd(bytes: Uint8Array, offset: number): number {
    for (let i = offset; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b === LF) {
        this.size.cr = false;
        this.state = State.ChunkSize;
        return i + 1;
      }
      if (b !== CR || this.size.cr) throw new ResponseParseError("upstream chunk data overran its declared size");
      this.size.cr = true;
    }
    return bytes.length;
  }

  private join(bytes: Uint8Array, offset: number): Uint8Array {
    const rest = offset === 0 ? bytes : bytes.subarray(offset);
    if (!this.pending) return rest;
    const joined = new Uint8Array(this.pending.length + rest.length);
    joined.set(this.pending, 0);
    joined.set(rest, this.pending.length);
    return joined;
  }
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

function indexOfHeadEnd(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(CR, from); i !== -1 && i + 3 < bytes.length; i = bytes.indexOf(CR, i + 1)) {
    if (bytes[i + 1] === LF && bytes[i + 2] === CR && bytes[i + 3] === LF) return i;
  }
  return -1;
}
