/**
 * What a guardrail's action looks like to the client (spec "Routing metadata object"): the 403 of a
 * block (`error.metadata` with the patterns, engines, guardrail id and name) and the `service_metadata.pipeline`
 * entries `{type: "guardrail", guardrail_id, guardrail_scope, name, summary, data: {action, detected, engines,
 * patterns}}`, one per guardrail and check that found something. Never the matched text itself.
 */
import { GatewayError } from "../errors.ts";
import type { PipelineEntry } from "../pipeline/context.ts";
import { INJECTION_PATTERNS_VERSION } from "./detectors/injection/patterns.ts";
import type { Filter } from "./policy.ts";
import type { Hit, Side, Verdict } from "./scan.ts";

type Action = "blocked" | "redacted" | "flagged";

/** The check's name in a pipeline entry: the reference's `regex_pi_detection` for prompt injection. */
export function checkName(filter: Filter): string {
  const slug = filter.detector.slug;
  if (slug === "regex-prompt-injection") return "regex_pi_detection";
  if (slug === "custom") return "content_filter";
  return `${slug.replaceAll("-", "_")}_detection`;
}

/** What a blocking filter is called in the 403's message. */
function blockedWhat(filter: Filter): string {
  if (filter.detector.slug === "regex-prompt-injection") return "prompt injection patterns detected";
  if (filter.detector.slug === "custom") return `content filter: ${filter.label ?? "[BLOCKED]"}`;
  return `content filter: ${filter.label ?? filter.detector.label}`;
}

function unique<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

/** Entries for one side's verdict, grouped by guardrail and check, in the order the filters were found. */
export function pipelineEntries(verdict: Verdict, side: Side): PipelineEntry[] {
  const groups = new Map<string, { filter: Filter; action: Action; hits: Hit[] }>();
  const add = (hits: readonly Hit[], action: Action) => {
    for (const hit of hits) {
      const key = `${hit.filter.guardrail.id}\u0000${checkName(hit.filter)}\u0000${action}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { filter: hit.filter, action, hits: [] }));
      group.hits.push(hit);
    }
  };
  add(verdict.blocks, "blocked");
  if (verdict.blocks.length === 0) add(verdict.redactions, "redacted");
  add(verdict.flags, "flagged");
  return [...groups.values()].map(({ filter, action, hits }) => entry(filter, action, hits, side));
}

function entry(filter: Filter, action: Action, hits: readonly Hit[], side: Side): PipelineEntry {
  const patterns = unique(hits.map((h) => h.finding.pattern));
  const count = hits.length;
  const what = side === "input" ? "request" : "response";
  return {
    type: "guardrail",
    name: checkName(filter),
    guardrail_id: filter.guardrail.id,
    guardrail_scope: filter.guardrail.scope,
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} the ${what}: ${count} finding${count === 1 ? "" : "s"} (${patterns.join(", ")}) by guardrail "${filter.guardrail.name}"`,
    data: {
      action,
      detected: true,
      engines: unique(hits.map((h) => h.filter.detector.engine)),
      patterns,
      side,
      ...(filter.detector.slug === "regex-prompt-injection" ? { patterns_version: INJECTION_PATTERNS_VERSION } : {}),
    },
  };
}

/** The 403 of a block: the first blocking filter names the message; metadata lists everything that blocked. */
export function blockError(blocks: readonly Hit[], side: Side): GatewayError {
  const first = blocks[0]!.filter;
  const subject = side === "input" ? "Request" : "Response";
  const message = first.detector.slug === "regex-prompt-injection" ? `${subject} blocked: ${blockedWhat(first)}` : `${subject} blocked by ${blockedWhat(first)}`;
  return new GatewayError("permission_denied", message, {
    status: 403,
    metadata: {
      patterns: unique(blocks.map((b) => b.finding.pattern)),
      engines: unique(blocks.map((b) => b.filter.detector.engine)),
      guardrail_id: first.guardrail.id,
      guardrail_name: first.guardrail.name,
      guardrail_scope: first.guardrail.scope,
      side,
    },
  });
}
