/**
 * alignment (beta; spec "alignment plugin"): an evaluator model checks every model turn against the
 * caller's own rules. `enforce` (default) withholds a turn that breaks a rule, retries it up to `max_retries` times
 * (the withheld reply and the broken rules sent back to the model), and finally answers with an error: 403 when
 * not streamed, an in-band error (a Responses `response.failed`) when the stream's headers are out; a turn the
 * evaluator could not judge is a 503 the same way. `audit` judges every turn and returns it. Every judged call is
 * reported in the result's `alignment` field. `instruct` (default true) states the rules in a system message on
 * every provider call. Only admitted keys and workspaces may use it (core/guardrails/admission.ts).
 *
 * It wraps each turn (`around`), so the agent loop's turns are each judged, each with its own retry budget; it is
 * the outermost turn plugin, so it judges what the client would receive.
 */
import { Type } from "@sinclair/typebox";
import { ResponseBuilder } from "../../core/sdk/index.ts";
import type { EventStream, StreamEvent } from "../../core/sdk/index.ts";
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { CanonicalResponse } from "../../core/sdk/index.ts";
import { eventsFromResponse } from "../../core/sdk/index.ts";
import { mapStream, streamOutcome, type Outcome, type StreamOutcome } from "../../core/sdk/index.ts";
import { definePlugin } from "../../core/sdk/index.ts";
import type { PluginContext, Turn } from "../../core/sdk/index.ts";
import { judge } from "./evaluator.ts";
import { rejectedOf } from "./rejected.ts";
import { record, reportOf, stateOf, type AlignmentState } from "./report.ts";
import { brokenRules, retryRequest } from "./retry.ts";
import { settingsOf, type AlignmentSettings } from "./settings.ts";

const INSTRUCTION = "Your reply must follow every one of these rules:";

const OptionsSchema = Type.Object(
  {
    rules: Type.Optional(Type.Array(Type.String())),
    mode: Type.Optional(Type.Union([Type.Literal("enforce"), Type.Literal("audit")])),
    instruct: Type.Optional(Type.Boolean()),
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
    threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
    // Operator settings (config only; refused in a request by settings.ts).
    evaluator_model: Type.Optional(Type.String({ minLength: 1 })),
    evaluator_timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    admit: Type.Optional(Type.Union([Type.Boolean(), Type.Object({ workspaces: Type.Optional(Type.Array(Type.String())), keys: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false })])),
  },
  { additionalProperties: false },
);

/** The settings, checked once per request (in `pre`) and kept for the turns. */
function settings(ctx: PluginContext): AlignmentSettings {
  let s = ctx.state.get("settings") as AlignmentSettings | undefined;
  if (!s) ctx.state.set("settings", (s = settingsOf(ctx)));
  return s;
}

function blockedError(ctx: PluginContext, s: AlignmentSettings, state: AlignmentState, judged: { rules: ReadonlyArray<{ broken: boolean }> }, response: CanonicalResponse, call: number) {
  const broken = brokenRules(s.rules, judged.rules).map((b) => `${b.index}: ${JSON.stringify(b.rule)}`).join("; ");
  return ctx.helpers.error("permission_denied", `Alignment plugin: the reply broke these rules: ${broken}`, {
    status: 403,
    metadata: { alignment: { ...reportOf(state), rejected: rejectedOf(ctx.request.format, response, call) }, usage: usageOf(state) },
  });
}

function unavailableError(ctx: PluginContext, state: AlignmentState, reason: string, response: CanonicalResponse, call: number) {
  return ctx.helpers.error("provider_unavailable", `Alignment plugin: the reply could not be evaluated: ${reason}`, {
    status: 503,
    metadata: { alignment: { ...reportOf(state), rejected: rejectedOf(ctx.request.format, response, call) }, usage: usageOf(state) },
  });
}

function usageOf(state: AlignmentState) {
  return { prompt_tokens: state.promptTokens, completion_tokens: state.completionTokens, total_tokens: state.promptTokens + state.completionTokens };
}

/** One non-streamed turn: judged, retried while blocked and retries remain. */
async function responseTurns(ctx: PluginContext, turn: Turn, request: CanonicalRequest, first: Outcome): Promise<Outcome> {
  const s = settings(ctx);
  const state = stateOf(ctx);
  let outcome = first;
  for (let attempt = 0; ; attempt++) {
    if (outcome.kind !== "response") return outcome;
    const response = outcome.response;
    const judged = await judge(ctx, s, response);
    const call = record(state, judged, response);
    if (s.mode === "audit" || judged.outcome === "allowed") return outcome;
    if (judged.outcome === "unavailable") throw unavailableError(ctx, state, judged.reason, response, call);
    if (attempt >= s.maxRetries) throw blockedError(ctx, s, state, judged, response, call);
    outcome = await turn(retryRequest(request, response, brokenRules(s.rules, judged.rules)));
  }
}

/** A streamed turn in `enforce`: each attempt held back until judged; what is finally passed on is one attempt's events. */
function enforcedStream(ctx: PluginContext, turn: Turn, request: CanonicalRequest, first: StreamOutcome): StreamOutcome {
  let current: Outcome = first;
  async function* run(): EventStream {
    const s = settings(ctx);
    const state = stateOf(ctx);
    for (let attempt = 0; ; attempt++) {
      const held: StreamEvent[] = [];
      const builder = new ResponseBuilder();
      const events = current.kind === "stream" ? current.events : eventsFromResponse(current.response);
      for await (const event of events) {
        held.push(event);
        builder.add(event);
      }
      // An upstream failure is not the model's reply: passed on as it is, unjudged.
      if (held.some((e) => e.type === "error")) return yield* held;
      const response = builder.response;
      const judged = await judge(ctx, s, response);
      const call = record(state, judged, response);
      if (judged.outcome === "allowed") return yield* held;
      const start = held.find((e) => e.type === "start");
      if (judged.outcome === "unavailable" || attempt >= s.maxRetries) {
        if (start) yield start;
        const error = judged.outcome === "unavailable" ? unavailableError(ctx, state, judged.reason, response, call) : blockedError(ctx, s, state, judged, response, call);
        // In-band, the metadata carries the calls only (the withheld reply stays withheld from the stream).
        yield { type: "error", error: ctx.helpers.error(error.type, error.message, { status: error.status, metadata: { alignment: reportOf(state) } }) };
        return;
      }
      try {
        current = await turn(retryRequest(request, response, brokenRules(s.rules, judged.rules)));
      } catch (thrown) {
        if (start) yield start;
        yield { type: "error", error: thrown as never };
        return;
      }
    }
  }
  return streamOutcome(run(), () => (current.kind === "stream" ? current.abandon() : undefined));
}

/** A streamed turn in `audit`: passed on as it flows; judged when it finishes, before its finish event goes out. */
function auditedStream(ctx: PluginContext, outcome: StreamOutcome): StreamOutcome {
  return mapStream(outcome, async function* (events) {
    const builder = new ResponseBuilder();
    for await (const event of events) {
      builder.add(event);
      if (event.type === "finish") record(stateOf(ctx), await judge(ctx, settings(ctx), builder.response), builder.response);
      yield event;
    }
  });
}

export default definePlugin({
  id: "alignment",
  description: "Beta: an evaluator model checks every model turn against the caller's rules (enforce: withhold and retry; audit: report).",
  // Outermost of the turn plugins: it judges the turn as the client would receive it.
  priority: -200,
  optionsSchema: OptionsSchema,
  hooks: {
    pre(ctx) {
      const s = settings(ctx);
      if (!s.instruct) return;
      // After the leading system messages: a fixed line, then one rule per line.
      ctx.request.system = [...ctx.request.system, { type: "text", text: `${INSTRUCTION}\n${s.rules.join("\n")}` }];
    },
    async around(ctx, turn) {
      const request = ctx.request;
      const first = await turn(request);
      if (first.kind === "response") return responseTurns(ctx, turn, request, first);
      return settings(ctx).mode === "audit" ? auditedStream(ctx, first) : enforcedStream(ctx, turn, request, first);
    },
    post(ctx, response) {
      const state = stateOf(ctx);
      if (state.calls.length > 0) response.alignment = reportOf(state);
      return response;
    },
    stream(ctx, events) {
      const state = stateOf(ctx);
      return (async function* () {
        for await (const event of events) yield event.type === "finish" && state.calls.length > 0 ? { ...event, alignment: reportOf(state) } : event;
      })();
    },
  },
});
