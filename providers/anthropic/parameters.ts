/**
 * Request parameters this adapter sends to Anthropic (request.ts: sampling, stop sequences, tools and tool_choice
 * with `disable_parallel_tool_use`, thinking, `output_config.format`), named as `supported_parameters` names them.
 * Penalties, seed, logprobs, logit_bias and verbosity have no Anthropic field and are dropped with a warning.
 * `response_format` is listed for its json_schema form; json_object has no Anthropic equivalent (a warning).
 */
export const ANTHROPIC_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "max_tokens",
  "response_format",
  "structured_outputs",
  "reasoning",
]);
