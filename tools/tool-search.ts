/**
 * `service:tool_search`: finds the request's deferred function tools
 * (`deferLoading: true`) and reveals the matches to the model from its next turn on.
 * Request entry parameters `{max_results?: 1–50, default 5}`; model arguments `{query: string (≤ 200 chars),
 * mode?: "regex" | "bm25"}`; result `{query, tools: [{name, description}]}` (the tools revealed). Free.
 *
 * Searched text, per deferred tool: its name, description, and the names and descriptions of its arguments (nested
 * object properties and array items included), one per line, cut at `MAX_TOOL_TEXT` characters.
 * - `regex` (default): the query is a case-insensitive, multi-line JavaScript regular expression; matches are listed
 *   in declaration order. It runs on the SDK's linear-time engine (`linearRegExp`), not on RegExp, so no pattern can
 *   backtrack catastrophically; backreferences and lookaround are refused, and a step budget caps the whole search.
 *   A bad or refused pattern, an over-long query or an exhausted budget is an error result for the model, never a
 *   failed request.
 * - `bm25`: the query is plain words, ranked with Okapi BM25 over the same text's words (camelCase and snake_case
 *   split); tools sharing no word with the query are not listed.
 * Whether this tool may itself be deferred, and `tool_choice` rules, are checked where tools are declared.
 */
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { defineTool, linearRegExp, PatternError, RegexBudgetError, StepBudget } from "../core/sdk/index.ts";
import type { Tool } from "../core/sdk/index.ts";
import { bm25 } from "./tool-search/bm25.ts";

export const DEFAULT_MAX_RESULTS = 5;
export const MAX_QUERY_LENGTH = 200;
/** Characters of each tool's text that are searched. */
export const MAX_TOOL_TEXT = 4_096;
/** Matcher steps for one regex search over all deferred tools (≈ a tenth of a second at worst). */
export const REGEX_STEP_BUDGET = 10_000_000;
/** Instructions a query may compile to once its repetitions are unrolled. */
export const MAX_REGEX_PROGRAM = 2_000;
/** How deep argument schemas are walked for names and descriptions. */
const MAX_SCHEMA_DEPTH = 4;

const ParametersSchema = Type.Object(
  { max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: DEFAULT_MAX_RESULTS })) },
  { additionalProperties: false },
);

const ArgumentsSchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_LENGTH,
      description: "regex mode: a case-insensitive regular expression (e.g. \"weather|forecast\"); bm25 mode: plain keywords.",
    }),
    mode: Type.Optional(Type.Union([Type.Literal("regex"), Type.Literal("bm25")], { description: 'Default "regex".' })),
  },
  { additionalProperties: false },
);
const argumentsCheck = TypeCompiler.Compile(ArgumentsSchema);

type FunctionTool = Extract<Tool, { kind: "function" }>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Argument names and descriptions of a JSON schema, depth first. */
function argumentLines(schema: unknown, out: string[], depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH || !isRecord(schema)) return;
  if (isRecord(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      out.push(name);
      if (isRecord(property) && typeof property.description === "string") out.push(property.description);
      argumentLines(property, out, depth + 1);
    }
  }
  argumentLines(schema.items, out, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) for (const option of options) argumentLines(option, out, depth + 1);
  }
}

/** What a search looks at for one tool: name, description, argument names and descriptions, one per line. */
export function searchableText(tool: FunctionTool): string {
  const lines = [tool.name];
  if (tool.description) lines.push(tool.description);
  argumentLines(tool.parameters, lines, 0);
  return lines.join("\n").slice(0, MAX_TOOL_TEXT);
}

/** The request's deferred function tools, first declaration of each name. */
function deferredTools(tools: readonly Tool[]): FunctionTool[] {
  const seen = new Set<string>();
  const out: FunctionTool[] = [];
  for (const tool of tools) {
    if (tool.kind !== "function" || tool.deferLoading !== true || seen.has(tool.name)) continue;
    seen.add(tool.name);
    out.push(tool);
  }
  return out;
}

function regexMatches(query: string, texts: readonly string[]): number[] {
  let regex;
  try {
    regex = linearRegExp(query, "im", { maxProgram: MAX_REGEX_PROGRAM });
  } catch (error) {
    if (error instanceof PatternError) throw new Error(`invalid regular expression: ${error.message}`);
    throw error;
  }
  const budget = new StepBudget(REGEX_STEP_BUDGET);
  const hits: number[] = [];
  try {
    texts.forEach((text, i) => {
      if (regex.test(text, budget)) hits.push(i);
    });
  } catch (error) {
    if (error instanceof RegexBudgetError) throw new Error("the regular expression is too expensive to run over these tools; use a simpler pattern");
    throw error;
  }
  return hits;
}

export default defineTool({
  id: "service:tool_search",
  description:
    "Searches the tools that are available but not loaded yet, by name, description and argument names; the tools found become callable on your next turn.",
  parametersSchema: ParametersSchema,
  argumentsSchema: ArgumentsSchema,
  async run(args, ctx) {
    if (typeof args.query === "string" && args.query.length > MAX_QUERY_LENGTH) {
      throw new Error(`query is ${args.query.length} characters; at most ${MAX_QUERY_LENGTH} are allowed`);
    }
    const bad = argumentsCheck.Errors(args).First();
    if (bad) throw new Error(`invalid arguments${bad.path ? ` (${bad.path.slice(1)})` : ""}: ${bad.message}`);
    const query = args.query as string;
    const mode = (args.mode as "regex" | "bm25" | undefined) ?? "regex";
    const limit = typeof ctx.parameters.max_results === "number" ? ctx.parameters.max_results : DEFAULT_MAX_RESULTS;
    const candidates = deferredTools(ctx.tools);
    const texts = candidates.map(searchableText);
    const order = mode === "bm25" ? bm25(query, texts).map((r) => r.index) : regexMatches(query, texts);
    const found = order.slice(0, limit).map((i) => candidates[i]!);
    if (found.length > 0) ctx.reveal(found.map((t) => t.name));
    return { query, tools: found.map((t) => ({ name: t.name, description: t.description ?? "" })) };
  },
});
