/**
 * The request's `trace` field is read by the gateway's own tracing (request-trace.ts) and never sent upstream. With
 * tracing off nothing reads it, so it is reported like any other field the gateway could not honour (and refused in
 * strict mode) rather than dropped in silence.
 */
import type { CanonicalRequest } from "../../model/request.ts";
import { warn } from "../../model/warnings.ts";

export function warnUnusedTrace(request: CanonicalRequest, tracingOn: boolean): void {
  if (tracingOn || request.trace === undefined) return;
  warn(request.warnings, "unsupported_field", "trace", "Tracing is off on this gateway; `trace` was not recorded");
}
