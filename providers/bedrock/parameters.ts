/**
 * Request parameters this adapter sends to Bedrock (request.ts: maxTokens, temperature, topP, stop sequences, tools
 * and tool choice, reasoning for Claude, `top_k` for Claude, structured output where the model has it), named as
 * `supported_parameters` names them. Penalties, seed, logprobs and logit_bias have no Converse field.
 */
export const BEDROCK_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "max_tokens",
  "response_format",
  "structured_outputs",
  "reasoning",
]);
