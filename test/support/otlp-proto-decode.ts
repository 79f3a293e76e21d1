/**
 * Decodes an OTLP ExportTraceServiceRequest (protobuf) into the shape of its OTLP/JSON mapping (hex ids, nanosecond
 * times as decimal strings, AnyValue objects), for the collector fake. Written from the wire format and the
 * `opentelemetry/proto` field numbers, independently of the gateway's encoder, and strict: an unknown wire type or a
 * length past the end throws, so a malformed export fails the test that sent it.
 */

class Reader {
  pos = 0;
  constructor(
    private readonly bytes: Uint8Array,
    readonly end = bytes.length,
  ) {}

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.end) throw new Error("otlp decode: varint past the end");
      const byte = this.bytes[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
      if (shift > 63n) throw new Error("otlp decode: varint too long");
    }
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) throw new Error("otlp decode: fixed64 past the end");
    const value = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return value;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new Error("otlp decode: double past the end");
    const value = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return value;
  }

  /** A length-delimited field's reader (and skips past it). */
  sub(): Reader {
    const length = Number(this.varint());
    if (this.pos + length > this.end) throw new Error("otlp decode: length past the end");
    const inner = new Reader(this.bytes, this.pos + length);
    inner.pos = this.pos;
    this.pos += length;
    return inner;
  }

  raw(): Uint8Array {
    const r = this.sub();
    return this.bytes.subarray(r.pos, r.end);
  }

  string(): string {
    return new TextDecoder("utf-8", { fatal: true }).decode(this.raw());
  }

  /** Each field of the message: its number, and a reader positioned at its value. */
  *fields(): Generator<[number, number]> {
    while (this.pos < this.end) {
      const key = Number(this.varint());
      yield [key >>> 3, key & 7];
    }
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.sub();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`otlp decode: wire type ${wire}`);
  }
}

type Json = Record<string, unknown>;

function anyValue(r: Reader): Json {
  const out: Json = {};
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) out.stringValue = r.string();
    else if (field === 2 && wire === 0) out.boolValue = r.varint() !== 0n;
    else if (field === 3 && wire === 0) out.intValue = BigInt.asIntN(64, r.varint()).toString();
    else if (field === 4 && wire === 1) out.doubleValue = r.double();
    else if (field === 5 && wire === 2) {
      const values: Json[] = [];
      const array = r.sub();
      for (const [f, w] of array.fields()) {
        if (f === 1 && w === 2) values.push(anyValue(array.sub()));
        else array.skip(w);
      }
      out.arrayValue = { values };
    } else r.skip(wire);
  }
  return out;
}

function keyValue(r: Reader): Json {
  const out: Json = { key: "", value: {} };
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) out.key = r.string();
    else if (field === 2 && wire === 2) out.value = anyValue(r.sub());
    else r.skip(wire);
  }
  return out;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function span(r: Reader): Json {
  const out: Json = { attributes: [] as Json[], status: {} };
  for (const [field, wire] of r.fields()) {
    if (field === 1 && wire === 2) out.traceId = hex(r.raw());
    else if (field === 2 && wire === 2) out.spanId = hex(r.raw());
    else if (field === 4 && wire === 2) out.parentSpanId = hex(r.raw());
    else if (field === 5 && wire === 2) out.name = r.string();
    else if (field === 6 && wire === 0) out.kind = Number(r.varint());
    else if (field === 7 && wire === 1) out.startTimeUnixNano = r.fixed64().toString();
    else if (field === 8 && wire === 1) out.endTimeUnixNano = r.fixed64().toString();
    else if (field === 9 && wire === 2) (out.attributes as Json[]).push(keyValue(r.sub()));
    else if (field === 15 && wire === 2) {
      const status: Json = {};
      const s = r.sub();
      for (const [f, w] of s.fields()) {
        if (f === 2 && w === 2) status.message = s.string();
        else if (f === 3 && w === 0) status.code = Number(s.varint());
        else s.skip(w);
      }
      out.status = status;
    } else r.skip(wire);
  }
  return out;
}

function attributesOf(r: Reader, field: number): Json[] {
  const attributes: Json[] = [];
  for (const [f, w] of r.fields()) {
    if (f === field && w === 2) attributes.push(keyValue(r.sub()));
    else r.skip(w);
  }
  return attributes;
}

export function decodeTraceRequest(bytes: Uint8Array): Json {
  const top = new Reader(bytes);
  const resourceSpans: Json[] = [];
  for (const [field, wire] of top.fields()) {
    if (field !== 1 || wire !== 2) {
      top.skip(wire);
      continue;
    }
    const rs = top.sub();
    const entry: Json = { resource: { attributes: [] }, scopeSpans: [] as Json[] };
    for (const [f, w] of rs.fields()) {
      if (f === 1 && w === 2) entry.resource = { attributes: attributesOf(rs.sub(), 1) };
      else if (f === 2 && w === 2) {
        const ss = rs.sub();
        const scopeSpans: Json = { scope: {}, spans: [] as Json[] };
        for (const [g, x] of ss.fields()) {
          if (g === 1 && x === 2) {
            const scope: Json = {};
            const sc = ss.sub();
            for (const [h, y] of sc.fields()) {
              if (h === 1 && y === 2) scope.name = sc.string();
              else if (h === 2 && y === 2) scope.version = sc.string();
              else sc.skip(y);
            }
            scopeSpans.scope = scope;
          } else if (g === 2 && x === 2) (scopeSpans.spans as Json[]).push(span(ss.sub()));
          else ss.skip(x);
        }
        (entry.scopeSpans as Json[]).push(scopeSpans);
      } else rs.skip(w);
    }
    resourceSpans.push(entry);
  }
  return { resourceSpans };
}
