/**
 * Request parameters this adapter sends to a Responses upstream (request.ts), named as `supported_parameters` names
 * them. The Responses API has no top_k, min_p, penalties, seed, stop or logit_bias (dropped with a warning).
 */
export const OPENAI_RESPONSES_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "top_logprobs",
  "max_tokens",
  "response_format",
  "structured_outputs",
  "verbosity",
  "reasoning",
]);
