/**
 * The fusion analysis: before the final answer, the analyst compares the panel's drafts — it does not
 * merge them — in a call of its own that must answer one JSON object of the reference's shape (`consensus`,
 * `contradictions`, `partial_coverage`, `unique_insights`, `blind_spots`). Its reply is repaired like
 * response-healing repairs JSON (jsonrepair over fences and prose) and checked against that schema. Any failure
 * (upstream, empty, not JSON, wrong shape) costs only the analysis: the request goes on without it, and the failure
 * is reported with the reference's judge_* reasons.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { CanonicalRequest, PluginContext } from "../../core/sdk/index.ts";
import { heal } from "../response-healing/heal.ts";
import { draftsBlock, type Draft } from "./drafts.ts";

const List = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Array(item, { default: [] });
export const AnalysisSchema = Type.Object({
  consensus: List(Type.String()),
  contradictions: List(Type.Object({ topic: Type.String(), stances: List(Type.Object({ model: Type.String(), stance: Type.String() })) })),
  partial_coverage: List(Type.Object({ models: List(Type.String()), point: Type.String() })),
  unique_insights: List(Type.Object({ model: Type.String(), insight: Type.String() })),
  blind_spots: List(Type.String()),
});
export type Analysis = Static<typeof AnalysisSchema>;

export type AnalysisFailure = "judge_upstream_error" | "judge_empty_completion" | "judge_not_valid_json" | "judge_schema_mismatch";
export type AnalysisResult = { analysis: Analysis } | { failure: AnalysisFailure; detail: string };

/** The most the analysis may write; its JSON is a summary of the drafts, not an answer. */
const ANALYSIS_MAX_TOKENS = 4_000;

const INSTRUCTIONS = (count: number) =>
  [
    `You are the analyst of a panel: ${count} model(s) answered the user's latest request independently (some may have searched the web). Their drafts follow.`,
    "Compare the drafts; do not merge them and do not answer the user. Return one JSON object and nothing else, of this shape:",
    '{"consensus": ["<a point every draft makes>"], "contradictions": [{"topic": "<what they disagree on>", "stances": [{"model": "<model id>", "stance": "<its position>"}]}], "partial_coverage": [{"models": ["<model id>"], "point": "<a point only some drafts make>"}], "unique_insights": [{"model": "<model id>", "insight": "<what only this draft saw>"}], "blind_spots": ["<what every draft missed>"]}',
    "Name models exactly as the drafts' model attributes do. Use empty arrays where there is nothing to say.",
    "",
  ].join("\n");

export async function analyse(ctx: PluginContext, base: CanonicalRequest, judge: string, drafts: readonly Draft[]): Promise<AnalysisResult> {
  const request: CanonicalRequest = {
    ...base,
    model: judge,
    models: [],
    stream: false,
    system: [...base.system, { type: "text", text: INSTRUCTIONS(drafts.length) + draftsBlock(drafts) }],
    tools: [],
    toolChoice: undefined,
    maxToolCalls: undefined,
    stopWhen: undefined,
    sampling: { ...base.sampling, temperature: 0 },
    maxTokens: ANALYSIS_MAX_TOKENS,
    output: { format: { type: "json_object" } },
    plugins: [],
    warnings: [],
    original: {},
  };
  let text: string;
  try {
    const response = await ctx.complete(request);
    if (response.error) return { failure: "judge_upstream_error", detail: response.error.message };
    text = response.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  } catch (error) {
    return { failure: "judge_upstream_error", detail: error instanceof Error ? error.message : String(error) };
  }
  return parseAnalysis(text);
}

/** The analysis in a model's reply: repaired if need be, missing lists defaulted to empty, unknown keys dropped. */
export function parseAnalysis(text: string): AnalysisResult {
  if (text.trim() === "") return { failure: "judge_empty_completion", detail: "the analysis call returned no text" };
  let shapeProblem: string | undefined;
  const check = (value: unknown): string | undefined => {
    const candidate = Value.Default(AnalysisSchema, Value.Clone(value));
    const first = Value.Errors(AnalysisSchema, candidate).First();
    shapeProblem = first ? `${first.path || "/"}: ${first.message}` : undefined;
    return shapeProblem;
  };
  const healed = heal(text, check);
  if (healed.kind === "failed") {
    return shapeProblem === undefined ? { failure: "judge_not_valid_json", detail: healed.reason } : { failure: "judge_schema_mismatch", detail: shapeProblem };
  }
  const value: unknown = JSON.parse(healed.kind === "valid" ? text.trim() : healed.json);
  return { analysis: Value.Clean(AnalysisSchema, Value.Default(AnalysisSchema, value)) as Analysis };
}
