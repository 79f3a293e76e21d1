/**
 * The built-in detectors by `content_filter_builtins` slug (the peer's, plus `secrets`, which no peer
 * exposes). The classifier engine of the moderation plugin is not a builtin slug here: it runs per request with
 * network calls, and a guardrail must stay a local, microsecond check. Every built-in but prompt injection (which
 * reads its own, stronger normalisation) matches on the matching view of the text (normalize.ts), its findings
 * mapped back to the original characters, on the request and on the answer alike.
 */
import { address } from "./address.ts";
import { promptInjection } from "./injection/detector.ts";
import { matchingView, originalSpan } from "./normalize.ts";
import { personName } from "./person-name.ts";
import { creditCard, email, ipAddress, phone, ssn } from "./pii.ts";
import { secrets } from "./secrets.ts";
import type { Detector, Finding } from "./types.ts";

/** `detector` reading the matching view of each text; its findings in the text's own offsets. */
function onMatchingView(detector: Detector): Detector {
  const find = detector.find.bind(detector);
  return {
    ...detector,
    find(text: string): Finding[] {
      const view = matchingView(text);
      if (!view.map) return find(view.text);
      return find(view.text).map((f) => ({ ...f, ...originalSpan(view, f.start, f.end) }));
    },
  };
}

export const BUILTIN_DETECTORS: ReadonlyMap<string, Detector> = new Map(
  [email, phone, ssn, creditCard, ipAddress, personName, address, promptInjection, secrets].map((d) => [d.slug, d === promptInjection ? d : onMatchingView(d)]),
);

export const BUILTIN_SLUGS: readonly string[] = [...BUILTIN_DETECTORS.keys()];
