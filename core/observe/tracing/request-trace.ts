/**
 * One request's span tree, built once it has ended from what it recorded: the request span (SERVER; INTERNAL for a
 * batch item), a child per model turn (its name and attributes from the OpenTelemetry GenAI conventions), under
 * each turn a CLIENT span per upstream attempt, and a child per server-tool call. Start and end times are the ones
 * the request recorded (Unix ms of the deps clock).
 */
import type { Attempt, RequestContext } from "../../pipeline/context.ts";
import { attemptOutcome, attemptStep } from "../attempts.ts";
import { routeLabel } from "../labels.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { attributeKey, AttributeWriter } from "./otlp-proto.ts";
import { parentOf } from "./parent.ts";
import { ShapeNode } from "./span-shapes.ts";
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

const GENERATION_ID = attributeKey("gateway.generation_id");
const RESPONSE_ID = attributeKey("gen_ai.response.id");
const BATCH_ID = attributeKey("gateway.batch_id");
const INPUT_TOKENS = attributeKey("gen_ai.usage.input_tokens");
const OUTPUT_TOKENS = attributeKey("gen_ai.usage.output_tokens");
const COST = attributeKey("gateway.cost_usd");
const FIRST_TOKEN = attributeKey("gateway.time_to_first_token_ms");
const MAX_TOKENS = attributeKey("gen_ai.request.max_tokens");
const TOOL_CALL_ID = attributeKey("gen_ai.tool.call.id");

export function emitRequestTrace(sdk: TracingSdk, ctx: RequestContext, status: number, endedAt: number, records: TraceRecords): void {
  const field = ctx.request?.trace;
  const parent = parentOf(ctx.headers, field);
  const route = routeLabel(ctx);
  const batch = route === "batch";
  const asked = stringField(field?.span_name);
  const span = sdk.spans.root({ name: asked, kind: batch ? INTERNAL : SERVER, startMs: ctx.startedAt, endMs: endedAt }, parent.remote, parent.traceId);
  if (!span) return; // not sampled: no children either
  requestAttributes(span, ctx, status, route, asked === undefined, field);
  const root = span.end(status >= 500 ? errorMessage(ctx.bill.ending.errorType ?? String(status)) : undefined);
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

const REQUEST_SHAPES = new ShapeNode();

function requestAttributes(a: OpenSpan, ctx: RequestContext, status: number, route: string, named: boolean, field: Record<string, unknown> | undefined): void {
  const bill = ctx.bill;
  const usage = bill.usage;
  a.raw(requestShape(ctx, status, route, named))
    .text(GENERATION_ID, ctx.generationId)
    .number(INPUT_TOKENS, usage.input.total)
    .number(OUTPUT_TOKENS, usage.output.total)
    .number(COST, bill.billed().total)
    .number(FIRST_TOKEN, ctx.firstTokenMs);
  if (ctx.batchId !== undefined) a.text(BATCH_ID, ctx.batchId);
  if (field) {
    a.str("gateway.trace.name", stringField(field.trace_name));
    for (const [key, value] of Object.entries(field)) if (!KNOWN_TRACE_KEYS.has(key)) a.clientValue(`gateway.trace.${key}`, attributeValue(value));
  }
}

/** The request span's name (unless the client named it) and its attributes from closed sets. */
function requestShape(ctx: RequestContext, status: number, route: string, named: boolean): Uint8Array {
  const { request, served } = ctx;
  const errorType = ctx.bill.ending.errorType;
  const keyName = ctx.principal?.name;
  const node = REQUEST_SHAPES.at(served)
    .at(route)
    .at(status)
    .at(request?.model)
    .at(request?.stream)
    .at(ctx.format.id)
    .at(errorType)
    .at(keyName)
    .at(named);
  if (node.shape) return node.shape;
  const a = new AttributeWriter();
  if (named) a.spanName(route === "batch" ? "batch item" : `POST ${route}`);
  a.str("gateway.format", ctx.format.id).num("http.response.status_code", status);
  if (route !== "batch") a.str("http.request.method", "POST").str("http.route", route);
  if (request) a.str("gen_ai.request.model", request.model).bool("gateway.stream", request.stream);
  if (served) a.str("gen_ai.response.model", served.model.id).str("gateway.provider", served.provider.id);
  a.str("error.type", errorType).str("gateway.key_name", keyName);
  return (node.shape = a.fragment());
}

/** A model turn's span and, under it, its attempts: `ctx.attempts[from..to)`. */
function turnSpan(sdk: TracingSdk, ctx: RequestContext, parent: SpanParent, from: number, to: number, turn: TurnRecord | undefined, field: Record<string, unknown> | undefined): void {
  const all = ctx.attempts;
  const first = from < to ? all[from] : undefined;
  const last = from < to ? all[to - 1] : undefined;
  const startTime = first?.startedAt ?? turn?.endedAt ?? ctx.startedAt;
  const endTime = turn?.endedAt ?? last?.endedAt ?? startTime;
  const asked = stringField(field?.generation_name);
  const a = sdk.spans
    .child({ name: asked, kind: INTERNAL, startMs: startTime, endMs: endTime }, parent)
    .raw(turnShape(ctx, turn, asked === undefined))
    .text(GENERATION_ID, ctx.generationId)
    .text(RESPONSE_ID, ctx.generationId)
    .number(MAX_TOKENS, ctx.request?.maxTokens);
  if (turn) {
    const { usage } = turn;
    a.number(INPUT_TOKENS, usage.input.total).number(OUTPUT_TOKENS, usage.output.total).number(COST, turn.cost.total);
  }
  const failed = !turn || turn.finish === "error";
  const inTurn = a.end(failed ? errorMessage(last?.errorType ?? "error") : undefined);
  for (let i = from; i < to; i++) attemptSpan(sdk, inTurn, all[i]!, attemptStep(all, i));
}

const TURN_SHAPES = new ShapeNode();

/** A turn span's name (unless the client named it) and its attributes from closed sets. */
function turnShape(ctx: RequestContext, turn: TurnRecord | undefined, named: boolean): Uint8Array {
  const model = turn?.endpoint.model.id ?? ctx.request?.model ?? "";
  const requested = ctx.request?.model ?? model;
  const node = TURN_SHAPES.at(turn?.endpoint).at(requested).at(turn ? turn.finish : model).at(named);
  if (node.shape) return node.shape;
  const a = new AttributeWriter();
  if (named) a.spanName(`chat ${model}`);
  a.str("gen_ai.operation.name", "chat").str("gen_ai.request.model", requested);
  if (turn) a.raw(endpointAttributes(turn.endpoint)).strs("gen_ai.response.finish_reasons", [turn.finish]);
  return (node.shape = a.fragment());
}

/** What a turn's span says of the endpoint that served it. */
function endpointAttributes(endpoint: Endpoint): Uint8Array {
  return new AttributeWriter()
    .str("gen_ai.system", endpoint.provider.adapter)
    .str("gen_ai.provider.name", endpoint.provider.adapter)
    .str("gen_ai.response.model", endpoint.model.id)
    .str("gateway.provider", endpoint.provider.id)
    .str("gateway.upstream_model", endpoint.model.upstreamModel)
    .fragment();
}

const ATTEMPT_SHAPES = new ShapeNode();

function attemptSpan(sdk: TracingSdk, parent: SpanParent, attempt: Attempt, step: string): void {
  sdk.spans
    .child({ name: undefined, kind: CLIENT, startMs: attempt.startedAt, endMs: attempt.endedAt ?? attempt.startedAt }, parent)
    .raw(attemptShape(attempt, step))
    .end(attempt.errorType !== undefined ? errorMessage(attempt.errorType) : undefined);
}

/** An attempt span's name and attributes: all from closed sets. */
function attemptShape(attempt: Attempt, step: string): Uint8Array {
  const outcome = attemptOutcome(attempt);
  const node = ATTEMPT_SHAPES.at(attempt.providerId).at(attempt.model).at(outcome).at(step).at(attempt.status).at(attempt.errorType).at(attempt.tier);
  if (node.shape) return node.shape;
  return (node.shape = new AttributeWriter()
    .spanName(`attempt ${attempt.providerId}`)
    .str("gateway.provider", attempt.providerId)
    .str("gen_ai.request.model", attempt.model)
    .str("gateway.attempt.outcome", outcome)
    .str("gateway.attempt.step", step)
    .num("http.response.status_code", attempt.status)
    .str("error.type", attempt.errorType)
    .str("gateway.service_tier", attempt.tier)
    .fragment());
}

const TOOL_SHAPES = new ShapeNode();

function toolSpan(sdk: TracingSdk, parent: SpanParent, tool: ToolRecord): void {
  const { part } = tool;
  sdk.spans
    .child({ name: undefined, kind: INTERNAL, startMs: tool.startedAt, endMs: tool.endedAt }, parent)
    .raw(toolShape(part.name, part.status))
    .text(TOOL_CALL_ID, part.callId)
    .end(part.status === "failed" ? errorMessage(part.error ?? "failed") : undefined);
}

/** A server-tool span's name and attributes from closed sets. */
function toolShape(name: string, status: string): Uint8Array {
  const node = TOOL_SHAPES.at(name).at(status);
  if (node.shape) return node.shape;
  return (node.shape = new AttributeWriter()
    .spanName(`execute_tool ${name}`)
    .str("gen_ai.operation.name", "execute_tool")
    .str("gen_ai.tool.name", name)
    .str("gateway.tool.status", status)
    .fragment());
}

function stringField(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_ATTRIBUTE_CHARS) : undefined;
}

function attributeValue(value: unknown): string | number | boolean {
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.slice(0, MAX_ATTRIBUTE_CHARS);
}
