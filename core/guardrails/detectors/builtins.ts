/**
 * The built-in detectors by `content_filter_builtins` slug (reference b9 and §5, plus `secrets`, which no peer
 * exposes). The classifier engine of the moderation plugin is not a builtin slug here: it runs per request with
 * network calls, and a guardrail must stay a local, microsecond check.
 */
import { address } from "./address.ts";
import { promptInjection } from "./injection/detector.ts";
import { personName } from "./person-name.ts";
import { creditCard, email, ipAddress, phone, ssn } from "./pii.ts";
import { secrets } from "./secrets.ts";
import type { Detector } from "./types.ts";

export const BUILTIN_DETECTORS: ReadonlyMap<string, Detector> = new Map(
  [email, phone, ssn, creditCard, ipAddress, personName, address, promptInjection, secrets].map((d) => [d.slug, d]),
);

export const BUILTIN_SLUGS: readonly string[] = [...BUILTIN_DETECTORS.keys()];
