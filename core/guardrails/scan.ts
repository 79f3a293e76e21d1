/**
 * Runs a policy's content filters over pieces of text and decides (reference b9): block beats redact beats flag,
 * across every guardrail that applies. Each detector runs once per text however many guardrails use it.
 */
import type { Finding } from "./detectors/types.ts";
import type { Filter } from "./policy.ts";
import type { TextSlot } from "./request-texts.ts";

export type Side = "input" | "output";

/** One finding of one filter in one piece of text. */
export interface Hit {
  filter: Filter;
  finding: Finding;
  slot: TextSlot;
}

export interface Verdict {
  blocks: Hit[];
  redactions: Hit[];
  flags: Hit[];
}

/** The filters that read this side; on input, prompt-injection's `user_only` scope leaves other roles out. */
export function filtersFor(filters: readonly Filter[], side: Side): Filter[] {
  return filters.filter((f) => (side === "input" ? f.input : f.output));
}

/** Hits in filter order (the policy's: guardrail by guardrail), then text order; each detector runs once per text. */
export function scanSlots(slots: readonly TextSlot[], filters: readonly Filter[], side: Side): Verdict {
  const verdict: Verdict = { blocks: [], redactions: [], flags: [] };
  if (filters.length === 0) return verdict;
  const found = new Map<Filter["detector"], Array<Finding[] | undefined>>();
  for (const filter of filters) {
    let perSlot = found.get(filter.detector);
    if (!perSlot) found.set(filter.detector, (perSlot = new Array<Finding[] | undefined>(slots.length)));
    slots.forEach((slot, i) => {
      if (slot.text.length === 0) return;
      if (side === "input" && filter.scanScope === "user_only" && slot.role !== "user") return;
      const findings = (perSlot[i] ??= filter.detector.find(slot.text));
      const bucket = filter.action === "block" ? verdict.blocks : filter.action === "redact" ? verdict.redactions : verdict.flags;
      for (const finding of findings) bucket.push({ filter, finding, slot });
    });
  }
  return verdict;
}
