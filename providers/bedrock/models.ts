/**
 * What the adapter needs to know of the model behind an `upstream_model` (a model id, a cross-region inference
 * profile such as `us.anthropic.…`, or an ARN naming either): whether it is Claude (thinking budgets and `top_k`
 * through `additionalModelRequestFields`, Anthropic-signed reasoning), and how it can be held to a JSON schema.
 * Computed once per endpoint (./endpoint.ts), never per request.
 */

/** How a JSON-schema answer is obtained: Converse `outputConfig.textFormat`, a forced tool, or not at all. */
export type StructuredOutput = "native" | "tool" | "none";

export interface ModelTraits {
  claude: boolean;
  structuredOutput: StructuredOutput;
}

const CLAUDE = /(?:^|[.:/])anthropic\.claude-/;
/** Claude generations with Bedrock's native structured outputs: 4.5 and later (Haiku/Sonnet/Opus 4.5, Opus 4.6, …). */
const CLAUDE_VERSION = /anthropic\.claude-(?:haiku|sonnet|opus)-(\d+)(?:-(\d)(?!\d))?/;
/** Open-weight families Bedrock lists for native structured outputs (Qwen, DeepSeek, Mistral, Gemma, Nemotron, MiniMax, Kimi, gpt-oss). */
const NATIVE_OPEN_WEIGHT = /(?:^|[.:/])(?:qwen|deepseek|mistral|google\.gemma|nvidia|minimax|moonshot(?:ai)?|openai)\./;
/** Families whose tool choice can force one tool (the JSON answer carried as that tool's input). */
const FORCED_TOOL = /(?:^|[.:/])amazon\.nova-/;

export function modelTraits(upstreamModel: string): ModelTraits {
  const id = upstreamModel.toLowerCase();
  const claude = CLAUDE.test(id);
  if (claude) {
    const version = CLAUDE_VERSION.exec(id);
    const major = Number(version?.[1] ?? 0);
    const minor = Number(version?.[2] ?? 0);
    return { claude, structuredOutput: major > 4 || (major === 4 && minor >= 5) ? "native" : "tool" };
  }
  if (NATIVE_OPEN_WEIGHT.test(id)) return { claude, structuredOutput: "native" };
  return { claude, structuredOutput: FORCED_TOOL.test(id) ? "tool" : "none" };
}

/** The reasoning `format` of Bedrock's other models (their reasoning carries no Anthropic signature). */
export const BEDROCK_REASONING_FORMAT = "amazon-bedrock-v1";

/**
 * The family a model's reasoning is tagged with: Claude's is Anthropic's own (its signatures are valid across the
 * Claude platforms, Bedrock, Anthropic's API and Vertex alike), the others' Bedrock's.
 */
export function reasoningFormat(traits: ModelTraits, anthropicFormat: string): string {
  return traits.claude ? anthropicFormat : BEDROCK_REASONING_FORMAT;
}
