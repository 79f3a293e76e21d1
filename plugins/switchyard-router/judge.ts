/**
 * switchyard-router's judge: any configured model (`judge_model`; the reference's is a hosted model) asked, in a
 * request of its own inside this one (billed with it), whether the efficient model can solve the task. It answers
 * `{crux, primary_rule, capability_boundary, p_solve}` as JSON. Cut at `judge_timeout_ms` (default 2.5 s); any
 * failure (time, upstream, not JSON, wrong shape) is reported and the capable tier answers.
 */
import { lastUserText, type CanonicalRequest, type PluginContext } from "../../core/sdk/index.ts";
import type { Boundary, Verdict } from "./decide.ts";

export const DEFAULT_JUDGE_TIMEOUT_MS = 2_500;
const TASK_CHARS = 4_000;

const INSTRUCTIONS = `You route tasks between two language models: an efficient (small, cheap) one and a capable (large, dear) one.
Read the task and judge whether the efficient model can solve it well.
Answer with one JSON object and nothing else:
{"crux": "<what makes the task hard, in a few words>", "primary_rule": "<the rule you applied>", "capability_boundary": "supported" | "uncertain" | "unmatched" | "unsupported", "p_solve": <probability 0 to 1 that the efficient model solves it>}`;

export type JudgeResult = { verdict: Verdict; crux?: string; primaryRule?: string } | { failure: string };

export async function askJudge(ctx: PluginContext, judgeModel: string, timeoutMs: number): Promise<JudgeResult> {
  const task = lastUserText(ctx.request.messages).slice(0, TASK_CHARS);
  const request: CanonicalRequest = {
    format: ctx.request.format,
    model: judgeModel,
    models: [],
    system: [{ type: "text", text: INSTRUCTIONS }],
    messages: [{ role: "user", parts: [{ type: "text", text: `Task:\n${task}` }] }],
    tools: [],
    sampling: { temperature: 0 },
    maxTokens: 300,
    output: { format: { type: "json_object" } },
    stream: false,
    plugins: [],
    warnings: [],
    original: {},
  };
  const timer = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    const response = await ctx.complete(request, { signal: timer });
    text = response.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  } catch (error) {
    if (timer.aborted) return { failure: "judge_timeout" };
    return { failure: `judge_upstream_error: ${error instanceof Error ? error.message : String(error)}` };
  }
  return parseVerdict(text);
}

const BOUNDARIES: readonly Boundary[] = ["supported", "uncertain", "unmatched", "unsupported"];

/** The judge's JSON (the first object in its text, so a fenced or prefaced answer still counts). */
export function parseVerdict(text: string): JudgeResult {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end <= start) return { failure: "judge_not_valid_json" };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return { failure: "judge_not_valid_json" };
  }
  const { capability_boundary: boundary, p_solve: pSolve, crux, primary_rule: rule } = (value ?? {}) as Record<string, unknown>;
  if (!BOUNDARIES.includes(boundary as Boundary) || typeof pSolve !== "number" || !(pSolve >= 0 && pSolve <= 1)) return { failure: "judge_schema_mismatch" };
  return {
    verdict: { boundary: boundary as Boundary, pSolve },
    ...(typeof crux === "string" ? { crux } : {}),
    ...(typeof rule === "string" ? { primaryRule: rule } : {}),
  };
}
