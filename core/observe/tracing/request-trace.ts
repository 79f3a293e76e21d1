/**
 * One request's span tree, built once it has ended from what it recorded: the request span (SERVER; INTERNAL for a
 * batch item), a child per model turn (its name and attributes from the OpenTelemetry GenAI conventions), under
 * each turn a CLIENT span per upstream attempt, and a child per server-tool call. Start and end times are the ones
 * the request recorded (Unix ms of the deps clock).
 */
import { trace } from "@opentelemetry/api";
import type { Attempt, RequestContext } from "../../pipeline/context.ts";
import { attemptOutcome, attemptStep } from "../attempts.ts";
import { routeLabel } from "../labels.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { AttributeWriter } from "./otlp-proto.ts";
import { parentOf } from "./parent.ts";
import type { ToolRecord, TraceRecords, TurnRecord } from "./records.ts";
import type { OpenSpan, SpanParent } from "./span-recorder.ts";
import type { TracingSdk } from "./sdk.ts";

/** OTLP span kinds. */
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
/** Keys of the request's `trace` field with a meaning of their own; the others become `gateway.trace.<key>`. */
const KNOWN_TRACE_KEYS = new Set(["trace_id", "trace_name", "span_name", "generation_name", "parent_span_id"]);
/** Attribute values from a client are cut here (a trace is no place for a prompt-sized value). */
const MAX_ATTRIBUTE_CHARS = 1_000;

export function emitRequestTrace(sdk: TracingSdk, ctx: RequestContext, status: number, endedAt: number, records: TraceRecords): void {
  const field = ctx.request?.trace;
  const parent = parentOf(sdk.propagator, ctx.headers, field);
  const route = routeLabel(ctx);
  const batch = route === "batch";
  const asked = stringField(field?.span_name);
  const name = asked ?? (batch ? "batch item" : named("POST ", route));
  const span = sdk.spans.root({ name, nameRepeats: asked === undefined, kind: batch ? INTERNAL : SERVER, startMs: ctx.startedAt, endMs: endedAt }, trace.getSpanContext(parent.context), parent.traceId);
  if (!span) return; // not sampled: no children either
  requestAttributes(span, ctx, status, route, field);
  const root = span.end(status >= 500 ? errorMessage(String(ctx.log.error_type ?? status)) : undefined);
  let from = 0;
  for (const turn of records.turns) {
    turnSpan(sdk, ctx, root, from, turn.attemptsUpTo, turn, field);
    from = Math.max(from, turn.attemptsUpTo);
  }
  // Attempts after the last metered turn: a turn that failed on every endpoint.
  if (from < ctx.attempts.length) turnSpan(sdk, ctx, root, from, ctx.attempts.length, undefined, field);
  for (const tool of records.tools) toolSpan(sdk, root, tool);
}

function errorMessage(message: string): string {
  return message.slice(0, MAX_ATTRIBUTE_CHARS);
}

function requestAttributes(a: OpenSpan, ctx: RequestContext, status: number, route: string, field: Record<string, unknown> | undefined): void {
  const usage = ctx.spend.usage;
  a.uniqueStr("gateway.generation_id", ctx.generationId)
    .str("gateway.format", ctx.format.id)
    .num("http.response.status_code", status)
    .num("gen_ai.usage.input_tokens", usage.input.total)
    .num("gen_ai.usage.output_tokens", usage.output.total)
    .num("gateway.cost_usd", ctx.spend.totalCost().total);
  if (route !== "batch") a.str("http.request.method", "POST").str("http.route", route);
  else a.uniqueStr("gateway.batch_id", String(ctx.log.batch_id));
  if (ctx.request) a.str("gen_ai.request.model", ctx.request.model).bool("gateway.stream", ctx.request.stream);
  if (ctx.served) a.str("gen_ai.response.model", ctx.served.model.id).str("gateway.provider", ctx.served.provider.id);
  if (ctx.log.error_type !== undefined) a.str("error.type", String(ctx.log.error_type));
  a.num("gateway.time_to_first_token_ms", ctx.firstTokenMs).str("gateway.key_name", ctx.principal?.name);
  if (field) {
    a.str("gateway.trace.name", stringField(field.trace_name));
    for (const [key, value] of Object.entries(field)) if (!KNOWN_TRACE_KEYS.has(key)) a.clientValue(`gateway.trace.${key}`, attributeValue(value));
  }
}

/** A model turn's span and, under it, its attempts: `ctx.attempts[from..to)`. */
function turnSpan(sdk: TracingSdk, ctx: RequestContext, parent: SpanParent, from: number, to: number, turn: TurnRecord | undefined, field: Record<string, unknown> | undefined): void {
  const all = ctx.attempts;
  const first = from < to ? all[from] : undefined;
  const last = from < to ? all[to - 1] : undefined;
  const startTime = first?.startedAt ?? turn?.endedAt ?? ctx.startedAt;
  const endTime = turn?.endedAt ?? last?.endedAt ?? startTime;
  const model = turn?.endpoint.model.id ?? ctx.request?.model ?? "";
  const asked = stringField(field?.generation_name);
  const a = sdk.spans
    .child({ name: asked ?? named("chat ", model), nameRepeats: asked === undefined, kind: INTERNAL, startMs: startTime, endMs: endTime }, parent)
    .str("gen_ai.operation.name", "chat")
    .str("gen_ai.request.model", ctx.request?.model ?? model)
    .uniqueStr("gateway.generation_id", ctx.generationId)
    .uniqueStr("gen_ai.response.id", ctx.generationId)
    .num("gen_ai.request.max_tokens", ctx.request?.maxTokens);
  if (turn) {
    const { usage } = turn;
    a.raw(endpointAttributes(turn.endpoint))
      .num("gen_ai.usage.input_tokens", usage.input.total)
      .num("gen_ai.usage.output_tokens", usage.output.total)
      .strs("gen_ai.response.finish_reasons", [turn.finish])
      .num("gateway.cost_usd", turn.cost.total);
  }
  const failed = !turn || turn.finish === "error";
  const inTurn = a.end(failed ? errorMessage(last?.errorType ?? "error") : undefined);
  for (let i = from; i < to; i++) attemptSpan(sdk, inTurn, all[i]!, attemptStep(all, i));
}

/** What a turn's span says of the endpoint that served it, written once per endpoint (the catalog keeps them). */
const ENDPOINT_ATTRIBUTES = new WeakMap<Endpoint, Uint8Array>();

function endpointAttributes(endpoint: Endpoint): Uint8Array {
  let found = ENDPOINT_ATTRIBUTES.get(endpoint);
  if (found === undefined) {
    found = new AttributeWriter()
      .str("gen_ai.system", endpoint.provider.adapter)
      .str("gen_ai.provider.name", endpoint.provider.adapter)
      .str("gen_ai.response.model", endpoint.model.id)
      .str("gateway.provider", endpoint.provider.id)
      .str("gateway.upstream_model", endpoint.model.upstreamModel)
      .fragment();
    ENDPOINT_ATTRIBUTES.set(endpoint, found);
  }
  return found;
}

function attemptSpan(sdk: TracingSdk, parent: SpanParent, attempt: Attempt, step: string): void {
  sdk.spans
    .child({ name: named("attempt ", attempt.providerId), nameRepeats: true, kind: CLIENT, startMs: attempt.startedAt, endMs: attempt.endedAt ?? attempt.startedAt }, parent)
    .str("gateway.provider", attempt.providerId)
    .str("gen_ai.request.model", attempt.model)
    .str("gateway.attempt.outcome", attemptOutcome(attempt))
    .str("gateway.attempt.step", step)
    .num("http.response.status_code", attempt.status)
    .str("error.type", attempt.errorType)
    .str("gateway.service_tier", attempt.tier)
    .end(attempt.errorType !== undefined ? errorMessage(attempt.errorType) : undefined);
}

function toolSpan(sdk: TracingSdk, parent: SpanParent, tool: ToolRecord): void {
  const { part } = tool;
  sdk.spans
    .child({ name: named("execute_tool ", part.name), nameRepeats: true, kind: INTERNAL, startMs: tool.startedAt, endMs: tool.endedAt }, parent)
    .str("gen_ai.operation.name", "execute_tool")
    .str("gen_ai.tool.name", part.name)
    .uniqueStr("gen_ai.tool.call.id", part.callId)
    .str("gateway.tool.status", part.status)
    .end(part.status === "failed" ? errorMessage(part.error ?? "failed") : undefined);
}

/** `prefix + value` for values of closed sets (routes, models, providers, tools), the same string each time. */
const NAMED = new Map<string, Map<string, string>>();

function named(prefix: string, value: string): string {
  let byValue = NAMED.get(prefix);
  if (byValue === undefined) NAMED.set(prefix, (byValue = new Map()));
  let name = byValue.get(value);
  if (name === undefined) {
    if (byValue.size >= 512) byValue.clear();
    byValue.set(value, (name = prefix + value));
  }
  return name;
}

function stringField(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_ATTRIBUTE_CHARS) : undefined;
}

function attributeValue(value: unknown): string | number | boolean {
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.slice(0, MAX_ATTRIBUTE_CHARS);
}
