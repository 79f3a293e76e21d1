/** Recording what an upstream cannot honour (README "Strict mode": never a silent drop). */
import type { CanonicalRequest } from "../model/request.ts";
import type { Warning } from "../model/warnings.ts";

/** What takes an adapter's warnings: the provider call itself (`ProviderCall.warn`). */
export interface WarningSink {
  warn(warning: Warning): void;
}

/**
 * Reports an `unsupported_field` warning to the call (or, inside a body builder, adds it to the list the builder was
 * given) unless one for the same field is already there, so a conversation with fifty cache marks yields one
 * warning, not fifty.
 */
export function warnUnsupported(to: Warning[] | WarningSink, field: string, message: string): void {
  if (!Array.isArray(to)) return to.warn({ code: "unsupported_field", field, message });
  if (to.some((w) => w.code === "unsupported_field" && w.field === field)) return;
  to.push({ code: "unsupported_field", field, message });
}

/** The part of a provider call `translate` and `reporting` need. */
interface Translating extends WarningSink {
  readonly request: CanonicalRequest;
}

/**
 * Runs a body builder on a copy of the call's request with a warnings list of its own, reports what the builder
 * recorded there through `call.warn`, and returns what it built: builders stay plain translations (a request in, a
 * body and its warnings out) and the call's request is never written.
 */
export function translate<T>(call: Translating, build: (request: CanonicalRequest) => T): T {
  const request: CanonicalRequest = { ...call.request, warnings: [] };
  const built = build(request);
  for (const warning of request.warnings) call.warn(warning);
  return built;
}

/** Runs `read` (a reply's translation) with a warnings list of its own and reports what it recorded through `call.warn`. */
export function reporting<T>(call: WarningSink, read: (warnings: Warning[]) => T): T {
  const warnings: Warning[] = [];
  const result = read(warnings);
  for (const warning of warnings) call.warn(warning);
  return result;
}
