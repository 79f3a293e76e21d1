/**
 * The few protobuf wire-format writes OTLP spans need (varints, fixed64, doubles, strings, bytes, nested messages),
 * into one growable buffer. A nested message's length is not known before its content is written: one byte is
 * reserved for it and, in the rare case the content reaches 128 bytes, the content is moved to make room.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;

const TWO_32 = 4_294_967_296;
/** Up to this many bytes (or characters) are copied in a loop rather than by a native call. */
const SMALL = 64;

export class ProtoWriter {
  private buf: Buffer;
  /** The same memory as a plain Uint8Array, whose `slice` copies (a Buffer's is a view). */
  private bytesView: Uint8Array;
  private view: DataView;
  pos = 0;

  constructor(size = 4096) {
    this.buf = Buffer.allocUnsafeSlow(size);
    this.bytesView = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.bytesView = new Uint8Array(bigger.buffer, bigger.byteOffset, bigger.byteLength);
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
  }

  /** A varint of a non-negative integer below 2^53. */
  varint(value: number): this {
    this.room(10);
    while (value >= 0x80) {
      this.buf[this.pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buf[this.pos++] = value;
    return this;
  }

  /** A varint of a negative integer: its 64-bit two's complement, always ten bytes. */
  private negativeVarint(value: number): void {
    let lo = ((value % TWO_32) + TWO_32) % TWO_32;
    let hi = (Math.floor(value / TWO_32) + TWO_32) % TWO_32;
    this.room(10);
    for (let i = 0; i < 9; i++) {
      this.buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | ((hi & 0x7f) << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo & 1;
  }

  tag(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  int64(field: number, value: number): this {
    this.tag(field, WIRE_VARINT);
    if (value >= 0) return this.varint(value);
    this.negativeVarint(value);
    return this;
  }

  double(field: number, value: number): this {
    this.tag(field, WIRE_FIXED64).room(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  /** Unix milliseconds (fractions to the nanosecond) as fixed64 nanoseconds, exact without BigInt. */
  unixNanos(field: number, ms: number): this {
    const whole = Math.floor(ms);
    const fraction = Math.round((ms - whole) * 1e6);
    // whole·10^6 + fraction = a·2^20 + b, with a and b exact in doubles; then split at 2^32.
    const high = Math.floor(whole / 0x100000);
    const a = high * 1e6;
    const b = (whole - high * 0x100000) * 1e6 + fraction;
    const low = (a % 4096) * 0x100000 + b;
    this.tag(field, WIRE_FIXED64).room(8);
    this.view.setUint32(this.pos, low % TWO_32, true);
    this.view.setUint32(this.pos + 4, Math.floor(a / 4096) + Math.floor(low / TWO_32), true);
    this.pos += 8;
    return this;
  }

  string(field: number, value: string): this {
    const start = this.begin(field);
    this.room(value.length * 3);
    const n = value.length;
    if (n <= SMALL) {
      // Short ASCII (ids, names) byte by byte: cheaper than the native UTF-8 encoder's call.
      const buf = this.buf;
      let at = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) break;
        buf[at++] = code;
      }
      if (i === n) {
        this.pos = at;
        return this.end(start);
      }
    }
    this.pos += this.buf.write(value, this.pos, "utf8");
    return this.end(start);
  }

  /** An 8-byte id (a span id) given as two 32-bit words, most significant first. */
  id64(field: number, hi: number, lo: number): this {
    this.tag(field, WIRE_LENGTH).room(9);
    this.buf[this.pos++] = 8;
    this.view.setUint32(this.pos, hi);
    this.view.setUint32(this.pos + 4, lo);
    this.pos += 8;
    return this;
  }

  /** A 16-byte id (a trace id) given as four 32-bit words, most significant first. */
  id128(field: number, a: number, b: number, c: number, d: number): this {
    this.tag(field, WIRE_LENGTH).room(17);
    this.buf[this.pos++] = 16;
    this.view.setUint32(this.pos, a);
    this.view.setUint32(this.pos + 4, b);
    this.view.setUint32(this.pos + 8, c);
    this.view.setUint32(this.pos + 12, d);
    this.pos += 16;
    return this;
  }

  bytes(bytes: Uint8Array): this {
    const n = bytes.length;
    this.room(n);
    if (n <= SMALL) {
      // Attribute keys and small cached blocks: a loop is cheaper than the native copy's call.
      const buf = this.buf;
      const at = this.pos;
      for (let i = 0; i < n; i++) buf[at + i] = bytes[i]!;
    } else this.buf.set(bytes, this.pos);
    this.pos += n;
    return this;
  }

  /** Opens a nested message (field `field`); returns where, for `end`. */
  begin(field: number): number {
    this.tag(field, WIRE_LENGTH).room(1);
    return this.pos++;
  }

  /** Closes the nested message opened at `start`, writing its length in front of it. */
  end(start: number): this {
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buf[start] = length;
      return this;
    }
    let size = 1;
    for (let rest = length; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
    this.room(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    let at = start;
    for (let rest = length; ; rest = Math.floor(rest / 0x80)) {
      if (rest < 0x80) {
        this.buf[at] = rest;
        break;
      }
      this.buf[at++] = (rest % 0x80) | 0x80;
    }
    this.pos += size - 1;
    return this;
  }

  /**
   * Opens a nested message expected to hold 128 bytes to 16 KB (a span): two bytes are reserved for its length, so
   * `endLarge` moves nothing in the usual case. Returns where, for `endLarge`.
   */
  beginLarge(field: number): number {
    this.tag(field, WIRE_LENGTH).room(2);
    const start = this.pos;
    this.pos += 2;
    return start;
  }

  /** Closes the nested message opened at `start` by `beginLarge`. */
  endLarge(start: number): this {
    const length = this.pos - start - 2;
    if (length >= 0x80 && length < 0x4000) {
      this.buf[start] = (length & 0x7f) | 0x80;
      this.buf[start + 1] = length >>> 7;
      return this;
    }
    // Shorter or longer than two length bytes hold: one byte back, then the general case.
    this.buf.copyWithin(start + 1, start + 2, this.pos);
    this.pos -= 1;
    return this.end(start);
  }

  /** What was written from `from` on, without a copy (valid until the writer is written again). */
  written(from = 0): Uint8Array {
    return this.buf.subarray(from, this.pos);
  }

  /** A copy of what was written since `from`, and the writer rewound there. */
  take(from = 0): Uint8Array {
    const out = this.bytesView.slice(from, this.pos);
    this.pos = from;
    return out;
  }
}

/** How many bytes the varint of `value` (non-negative) takes. */
export function varintSize(value: number): number {
  let size = 1;
  for (; value >= 0x80; value = Math.floor(value / 0x80)) size++;
  return size;
}
