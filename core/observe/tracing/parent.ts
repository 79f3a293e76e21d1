/**
 * Where a request's trace hangs: the client's W3C `traceparent` header when it sent a valid one; else the request
 * body's `trace` field (`trace_id` + `parent_span_id` as a remote parent, or `trace_id` alone as the id of a new
 * trace); else a new trace. Ids that are not lowercase hex of the right length (or all zeros) are ignored.
 *
 * The header is parsed here, by the rules OpenTelemetry's W3C propagator applies (the unit test checks both agree on
 * a corpus): the gateway starts traces and never passes context on, so it needs the parse and nothing of the API's
 * context machinery, which cost every traced request a header lookup through it and four objects.
 */
import { SAMPLED, type RemoteParent } from "./span-recorder.ts";

/** version-traceid-parentid-flags, then (for versions after 00) more fields; one space of padding tolerated. */
const TRACEPARENT = /^\s?([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?\s?$/;
const ALL_ZEROS = /^0+$/;

export interface TraceParent {
  /** The remote span the request's span hangs under, with the caller's sampling decision. */
  remote: RemoteParent | undefined;
  /** A trace id for the request span to take when it starts a trace of its own. */
  traceId: string | undefined;
}

export function parentOf(headers: Headers, field: Record<string, unknown> | undefined): TraceParent {
  const remote = parseTraceparent(headers.get("traceparent"));
  if (remote) return { remote, traceId: undefined };
  const traceId = hexId(field?.trace_id, 32);
  const spanId = hexId(field?.parent_span_id, 16);
  if (traceId && spanId) return { remote: { traceId, spanId, traceFlags: SAMPLED }, traceId: undefined };
  return { remote: undefined, traceId };
}

/** A `traceparent` header's parent, or undefined when the header is absent or not valid. */
export function parseTraceparent(value: string | null): RemoteParent | undefined {
  if (value === null) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has exactly four fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

function hexId(value: unknown, length: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const id = value.toLowerCase().replaceAll("-", "");
  return id.length === length && /^[0-9a-f]+$/.test(id) && !ALL_ZEROS.test(id) ? id : undefined;
}
