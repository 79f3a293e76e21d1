/**
 * One request's span tree, built once it has ended from what it recorded: the request span (SERVER; INTERNAL for a
 * batch item), a child per model turn (its name and attributes from the OpenTelemetry GenAI conventions), under
 * each turn a CLIENT span per upstream attempt, and a child per server-tool call. Start and end times are the ones
 * the request recorded (Unix ms of the deps clock).
 */
import { SpanKind, SpanStatusCode, trace, type Attributes, type SpanContext, type SpanStatus } from "@opentelemetry/api";
import type { Attempt, RequestContext } from "../../pipeline/context.ts";
import { attemptOutcome, attemptStep } from "../attempts.ts";
import { routeLabel } from "../labels.ts";
import { parentOf } from "./parent.ts";
import type { ToolRecord, TraceRecords, TurnRecord } from "./records.ts";
import type { TracingSdk } from "./sdk.ts";

/** Keys of the request's `trace` field with a meaning of their own; the others become `gateway.trace.<key>`. */
const KNOWN_TRACE_KEYS = new Set(["trace_id", "trace_name", "span_name", "generation_name", "parent_span_id"]);
/** Attribute values from a client are cut here (a trace is no place for a prompt-sized value). */
const MAX_ATTRIBUTE_CHARS = 1_000;

export function emitRequestTrace(sdk: TracingSdk, ctx: RequestContext, status: number, endedAt: number, records: TraceRecords): void {
  const field = ctx.request?.trace;
  const parent = parentOf(sdk.propagator, ctx.headers, field);
  const route = routeLabel(ctx);
  const batch = route === "batch";
  const name = stringField(field?.span_name) ?? (batch ? "batch item" : `POST ${route}`);
  const root = sdk.spans.root(
    {
      name,
      kind: batch ? SpanKind.INTERNAL : SpanKind.SERVER,
      startMs: ctx.startedAt,
      endMs: endedAt,
      attributes: requestAttributes(ctx, status, route, field),
      ...(status >= 500 ? { status: error(String(ctx.log.error_type ?? status)) } : {}),
    },
    trace.getSpanContext(parent.context),
    parent.traceId,
  );
  if (!root) return; // not sampled: no children either
  let from = 0;
  for (const turn of records.turns) {
    turnSpan(sdk, ctx, root, ctx.attempts.slice(from, turn.attemptsUpTo), turn, field);
    from = Math.max(from, turn.attemptsUpTo);
  }
  // Attempts after the last metered turn: a turn that failed on every endpoint.
  if (from < ctx.attempts.length) turnSpan(sdk, ctx, root, ctx.attempts.slice(from), undefined, field);
  for (const tool of records.tools) toolSpan(sdk, root, tool);
}

function error(message: string): SpanStatus {
  return { code: SpanStatusCode.ERROR, message: message.slice(0, MAX_ATTRIBUTE_CHARS) };
}

function requestAttributes(ctx: RequestContext, status: number, route: string, field: Record<string, unknown> | undefined): Attributes {
  const usage = ctx.spend.usage;
  const attributes: Attributes = {
    "gateway.generation_id": ctx.generationId,
    "gateway.format": ctx.format.id,
    "http.response.status_code": status,
    "gen_ai.usage.input_tokens": usage.input.total,
    "gen_ai.usage.output_tokens": usage.output.total,
    "gateway.cost_usd": ctx.spend.totalCost().total,
  };
  if (route !== "batch") {
    attributes["http.request.method"] = "POST";
    attributes["http.route"] = route;
  } else attributes["gateway.batch_id"] = String(ctx.log.batch_id);
  if (ctx.request) {
    attributes["gen_ai.request.model"] = ctx.request.model;
    attributes["gateway.stream"] = ctx.request.stream;
  }
  if (ctx.served) {
    attributes["gen_ai.response.model"] = ctx.served.model.id;
    attributes["gateway.provider"] = ctx.served.provider.id;
  }
  if (ctx.log.error_type !== undefined) attributes["error.type"] = String(ctx.log.error_type);
  if (ctx.firstTokenMs !== undefined) attributes["gateway.time_to_first_token_ms"] = ctx.firstTokenMs;
  if (ctx.principal) attributes["gateway.key_name"] = ctx.principal.name;
  if (field) {
    const traceName = stringField(field.trace_name);
    if (traceName) attributes["gateway.trace.name"] = traceName;
    for (const [key, value] of Object.entries(field)) if (!KNOWN_TRACE_KEYS.has(key)) attributes[`gateway.trace.${key}`] = attributeValue(value);
  }
  return attributes;
}

function turnSpan(sdk: TracingSdk, ctx: RequestContext, parent: SpanContext, attempts: Attempt[], turn: TurnRecord | undefined, field: Record<string, unknown> | undefined): void {
  const first = attempts[0];
  const startTime = first?.startedAt ?? turn?.endedAt ?? ctx.startedAt;
  const endTime = turn?.endedAt ?? attempts.at(-1)?.endedAt ?? startTime;
  const model = turn?.endpoint.model.id ?? ctx.request?.model ?? "";
  const attributes: Attributes = { "gen_ai.operation.name": "chat", "gen_ai.request.model": ctx.request?.model ?? model, "gateway.generation_id": ctx.generationId, "gen_ai.response.id": ctx.generationId };
  if (ctx.request?.maxTokens !== undefined) attributes["gen_ai.request.max_tokens"] = ctx.request.maxTokens;
  if (turn) {
    const { endpoint, usage } = turn;
    Object.assign(attributes, {
      "gen_ai.system": endpoint.provider.adapter,
      "gen_ai.provider.name": endpoint.provider.adapter,
      "gen_ai.response.model": endpoint.model.id,
      "gateway.provider": endpoint.provider.id,
      "gateway.upstream_model": endpoint.model.upstreamModel,
      "gen_ai.usage.input_tokens": usage.input.total,
      "gen_ai.usage.output_tokens": usage.output.total,
      "gen_ai.response.finish_reasons": [turn.finish],
      "gateway.cost_usd": turn.cost.total,
    });
  }
  const name = stringField(field?.generation_name) ?? `chat ${model}`;
  const failed = !turn || turn.finish === "error";
  const inTurn = sdk.spans.child({ name, kind: SpanKind.INTERNAL, startMs: startTime, endMs: endTime, attributes, ...(failed ? { status: error(attempts.at(-1)?.errorType ?? "error") } : {}) }, parent);
  const all = ctx.attempts;
  const offset = first ? all.indexOf(first) : 0;
  attempts.forEach((attempt, i) => attemptSpan(sdk, inTurn, attempt, attemptStep(all, offset + i)));
}

function attemptSpan(sdk: TracingSdk, parent: SpanContext, attempt: Attempt, step: string): void {
  const outcome = attemptOutcome(attempt);
  const attributes: Attributes = {
    "gateway.provider": attempt.providerId,
    "gen_ai.request.model": attempt.model,
    "gateway.attempt.outcome": outcome,
    "gateway.attempt.step": step,
  };
  if (attempt.status !== undefined) attributes["http.response.status_code"] = attempt.status;
  if (attempt.errorType !== undefined) attributes["error.type"] = attempt.errorType;
  if (attempt.tier !== undefined) attributes["gateway.service_tier"] = attempt.tier;
  sdk.spans.child(
    {
      name: `attempt ${attempt.providerId}`,
      kind: SpanKind.CLIENT,
      startMs: attempt.startedAt,
      endMs: attempt.endedAt ?? attempt.startedAt,
      attributes,
      ...(attempt.errorType !== undefined ? { status: error(attempt.errorType) } : {}),
    },
    parent,
  );
}

function toolSpan(sdk: TracingSdk, parent: SpanContext, tool: ToolRecord): void {
  const { part } = tool;
  sdk.spans.child(
    {
      name: `execute_tool ${part.name}`,
      kind: SpanKind.INTERNAL,
      startMs: tool.startedAt,
      endMs: tool.endedAt,
      attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": part.name, "gen_ai.tool.call.id": part.callId, "gateway.tool.status": part.status },
      ...(part.status === "failed" ? { status: error(part.error ?? "failed") } : {}),
    },
    parent,
  );
}

function stringField(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_ATTRIBUTE_CHARS) : undefined;
}

function attributeValue(value: unknown): string | number | boolean {
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.slice(0, MAX_ATTRIBUTE_CHARS);
}
