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
 * Attributes whose key and value repeat from request to request (format, route, model, provider, outcome, status,
 * token counts): each `{"key":…,"value":…}` is written once and reused. Besides skipping the escaping, this keeps
 * a span's text from being a rope of hundreds of small pieces, which the export's join would have to walk (that walk
 * was the largest single cost of tracing, measured). Per key, emptied when full, so a client sending ever new names
 * can only make it the uncached path.
 */
const REPEATED = new Map<string, Map<string | number | boolean, string>>();
const REPEATED_PER_KEY = 512;

function repeated(key: string, value: string | number | boolean, write: () => string): string {
  let values = REPEATED.get(key);
  if (values === undefined) REPEATED.set(key, (values = new Map()));
  let found = values.get(value);
  if (found === undefined) {
    if (values.size >= REPEATED_PER_KEY) values.clear();
    // Flattened once here (a rope passed to a Buffer is resolved), so every reuse is one flat piece.
    found = Buffer.from(write(), "utf8").toString("utf8");
    values.set(value, found);
  }
  return found;
}

/** A quoted repeated value (span names, the request's model): see REPEATED. */
export function quoteRepeated(text: string): string {
  return repeated("", text, () => quote(text));
}

function numberJson(value: number): string {
  return Number.isInteger(value) ? `{"intValue":"${value}"}` : `{"doubleValue":${Number.isFinite(value) ? value : 0}}`;
}

/**
 * A span's attribute list, appended to one attribute at a time and joined once. `key` must be a JSON-safe constant
 * (every key the gateway writes is one); keys that come from a client go through `clientValue`, which escapes them.
 */
export class AttributeWriter {
  private readonly parts: string[] = [];

  private add(key: string, value: string): this {
    this.parts.push(`{"key":"${key}","value":${value}}`);
    return this;
  }

  /** A string attribute whose value repeats across requests (a model, a provider, a closed-set name). */
  str(key: string, value: string | undefined): this {
    if (value !== undefined) this.parts.push(repeated(key, value, () => `{"key":"${key}","value":{"stringValue":${quote(value)}}}`));
    return this;
  }

  /** A string attribute whose value is new each time (an id): not cached. */
  uniqueStr(key: string, value: string): this {
    return this.add(key, `{"stringValue":${quote(value)}}`);
  }

  /** A string attribute whose value is already a JSON string literal. */
  quoted(key: string, json: string): this {
    return this.add(key, `{"stringValue":${json}}`);
  }

  /** Integers as OTLP intValue (a decimal string), anything else as doubleValue; small integers repeat. */
  num(key: string, value: number | undefined): this {
    if (value === undefined) return this;
    if (Number.isInteger(value) && value >= 0 && value < 4096) this.parts.push(repeated(key, value, () => `{"key":"${key}","value":${numberJson(value)}}`));
    else this.add(key, numberJson(value));
    return this;
  }

  bool(key: string, value: boolean | undefined): this {
    if (value !== undefined) this.parts.push(repeated(key, value, () => `{"key":"${key}","value":{"boolValue":${value}}}`));
    return this;
  }

  /** A one-element list repeats like a string (a turn's finish reason); longer ones are written each time. */
  strs(key: string, values: readonly string[]): this {
    const write = () => `{"key":"${key}","value":{"arrayValue":{"values":[${values.map((v) => `{"stringValue":${quote(v)}}`).join(",")}]}}}`;
    this.parts.push(values.length === 1 ? repeated(`${key}[]`, values[0]!, write) : write());
    return this;
  }

  /** A value of a client-chosen key: numbers and booleans as they are, anything else as text. Not cached. */
  clientValue(key: string, value: string | number | boolean): this {
    const safeKey = quote(key).slice(1, -1);
    if (typeof value === "string") return this.add(safeKey, `{"stringValue":${quote(value)}}`);
    return this.add(safeKey, typeof value === "boolean" ? `{"boolValue":${value}}` : numberJson(value));
  }

  /** Attributes another writer wrote (`fragment()`), e.g. ones cached per endpoint. */
  raw(fragment: string): this {
    if (fragment !== "") this.parts.push(fragment);
    return this;
  }

  /** What was written, to be added to other lists with `raw`. */
  fragment(): string {
    return this.parts.join(",");
  }

  /** The JSON array of what was written. */
  toJson(): string {
    return `[${this.parts.join(",")}]`;
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
