/**
 * What a traced request remembers beyond its context: each metered turn's end and result, and each server-tool
 * call, in the context's `traceRecords` slot (unset unless tracing is on).
 */
import type { ServerToolPart } from "../../model/parts.ts";
import type { FinishReason } from "../../model/response.ts";
import type { Cost, Usage } from "../../model/usage.ts";
import type { RequestContext } from "../../pipeline/context.ts";
import type { Endpoint } from "../../routing/catalog.ts";

export interface TurnRecord {
  endpoint: Endpoint;
  usage: Usage;
  cost: Cost;
  finish: FinishReason;
  /** Unix ms the turn was metered: its response arrived, or its stream ended. */
  endedAt: number;
  /** `ctx.attempts.length` when it was metered: the turn's attempts are the ones since the previous turn's. */
  attemptsUpTo: number;
}

export interface ToolRecord {
  part: ServerToolPart;
  startedAt: number;
  endedAt: number;
}

export interface TraceRecords {
  turns: TurnRecord[];
  tools: ToolRecord[];
}

export function recordsOf(ctx: RequestContext): TraceRecords {
  return (ctx.traceRecords ??= { turns: [], tools: [] });
}

/** The records, forgotten (a request is traced once). */
export function takeRecords(ctx: RequestContext): TraceRecords {
  const found = ctx.traceRecords ?? { turns: [], tools: [] };
  ctx.traceRecords = undefined;
  return found;
}
