/**
 * Request parameters this adapter sends to a chat-completions upstream (request.ts), named as `supported_parameters`
 * names them. Whether the upstream model then uses each one is the upstream's business (a model entry's
 * `supported_parameters` in the config narrows the list).
 */
export const OPENAI_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "seed",
  "stop",
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "max_tokens",
  "response_format",
  "structured_outputs",
  "verbosity",
  "reasoning",
]);
