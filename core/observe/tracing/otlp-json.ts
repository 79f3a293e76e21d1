/**
 * OTLP/JSON text for spans, written straight from the values a request recorded. Tracing every request spends most
 * of its time here (bench/observability.ts): building an `Attributes` object per span, walking it and
 * `JSON.stringify`-ing every key and value cost ~20 µs a request, three times what the request's metrics cost. So
 * attribute keys are written as the literal code constants they are (only a client's `trace` keys are escaped),
 * string values are escaped only when they need it, and each span is one string from the moment it is built: the
 * export joins them. Field names and enum values follow the OTLP/JSON mapping: hex ids, nanosecond times as
 * decimal strings, span kinds 1–5, status codes 0–2.
 */

/** Strings JSON can carry between two quotes as they are (no quote, backslash, control or lone-surrogate char). */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A JSON string literal of `text`. */
export function quote(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/**
 * Quoted values that repeat from request to request (model, provider, key and tool names): a lookup of the same
 * string object is cheaper than testing it again. Emptied when full, so a client sending ever new names can only
 * make it a plain `quote`.
 */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 2048;

export function quoteRepeated(text: string): string {
  let found = QUOTED.get(text);
  if (found === undefined) {
    if (QUOTED.size >= QUOTED_MAX) QUOTED.clear();
    QUOTED.set(text, (found = quote(text)));
  }
  return found;
}

/**
 * A span's attribute list, appended to one attribute at a time. `key` must be a JSON-safe constant (every key the
 * gateway writes is one); keys that come from a client go through `clientValue`, which escapes them. Values come
 * as JSON already (`quoted`, `raw`) when the caller can reuse or cache their encoding.
 */
export class AttributeWriter {
  private text = "";

  private add(key: string, value: string): this {
    this.text += `${this.text === "" ? "" : ","}{"key":"${key}","value":${value}}`;
    return this;
  }

  /** A string attribute whose value repeats across requests (see `quoteRepeated`). */
  str(key: string, value: string | undefined): this {
    return value === undefined ? this : this.add(key, `{"stringValue":${quoteRepeated(value)}}`);
  }

  /** A string attribute whose value is new each time (an id): escaped without the cache. */
  uniqueStr(key: string, value: string): this {
    return this.add(key, `{"stringValue":${quote(value)}}`);
  }

  /** A string attribute whose value is already a JSON string literal. */
  quoted(key: string, json: string): this {
    return this.add(key, `{"stringValue":${json}}`);
  }

  /** Integers as OTLP intValue (a decimal string), anything else as doubleValue. */
  num(key: string, value: number | undefined): this {
    if (value === undefined) return this;
    return this.add(key, Number.isInteger(value) ? `{"intValue":"${value}"}` : `{"doubleValue":${Number.isFinite(value) ? value : 0}}`);
  }

  bool(key: string, value: boolean | undefined): this {
    return value === undefined ? this : this.add(key, `{"boolValue":${value}}`);
  }

  strs(key: string, values: readonly string[]): this {
    return this.add(key, `{"arrayValue":{"values":[${values.map((v) => `{"stringValue":${quoteRepeated(v)}}`).join(",")}]}}`);
  }

  /** A value of a client-chosen key: numbers and booleans as they are, anything else as text. */
  clientValue(key: string, value: string | number | boolean): this {
    const safeKey = quote(key).slice(1, -1);
    if (typeof value === "string") return this.add(safeKey, `{"stringValue":${quote(value)}}`);
    return typeof value === "boolean" ? this.bool(safeKey, value) : this.num(safeKey, value);
  }

  /** Attributes another writer wrote (`fragment()`), e.g. ones cached per endpoint. */
  raw(fragment: string): this {
    if (fragment !== "") this.text += this.text === "" ? fragment : `,${fragment}`;
    return this;
  }

  /** What was written, to be added to other lists with `raw`. */
  fragment(): string {
    return this.text;
  }

  /** The JSON array of what was written. */
  toJson(): string {
    return `[${this.text}]`;
  }
}

/** Unix milliseconds (fractions kept to the nanosecond) as OTLP's decimal nanoseconds. */
export function unixNanos(ms: number): string {
  // A request's spans share most of their start and end times, and requests ending together share theirs.
  if (ms === lastMs) return lastNanos;
  lastMs = ms;
  return (lastNanos = toNanos(ms));
}

let lastMs = Number.NaN;
let lastNanos = "";

function toNanos(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  if (nanos === 0 || nanos === 1e6) return whole + nanos / 1e6 === 0 ? "0" : `${whole + nanos / 1e6}000000`;
  return whole === 0 ? String(nanos) : `${whole}${String(nanos).padStart(6, "0")}`;
}

export interface SpanJson {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startMs: number;
  endMs: number;
  /** A JSON array from `AttributeWriter.toJson()`. */
  attributes: string;
  /** An error's message; undefined: status unset. */
  error: string | undefined;
}

/** One span object of an OTLP/JSON export (ids must already be lowercase hex: the recorder makes or checks them). */
export function spanJson(s: SpanJson): string {
  const parent = s.parentSpanId === undefined ? "" : `,"parentSpanId":"${s.parentSpanId}"`;
  const status = s.error === undefined ? "{}" : `{"code":2,"message":${quote(s.error)}}`;
  return (
    `{"traceId":"${s.traceId}","spanId":"${s.spanId}"${parent},"name":${quoteRepeated(s.name)},"kind":${s.kind},` +
    `"startTimeUnixNano":"${unixNanos(s.startMs)}","endTimeUnixNano":"${unixNanos(Math.max(s.endMs, s.startMs))}",` +
    `"attributes":${s.attributes},"status":${status}}`
  );
}

export interface ExportEnvelope {
  resource: Record<string, string>;
  scope: { name: string; version: string };
}

/**
 * The text around a batch of spans in one export request (all spans share the resource and instrumentation scope):
 * `head + spans.join(",") + tail`.
 */
export function exportFrame(envelope: ExportEnvelope): { head: string; tail: string } {
  const resource = new AttributeWriter();
  for (const [key, value] of Object.entries(envelope.resource)) resource.clientValue(key, value);
  const { name, version } = envelope.scope;
  return {
    head: `{"resourceSpans":[{"resource":{"attributes":${resource.toJson()}},"scopeSpans":[{"scope":{"name":${quote(name)},"version":${quote(version)}},"spans":[`,
    tail: `]}]}]}`,
  };
}
