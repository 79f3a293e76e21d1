/**
 * Request parameters this adapter sends to Gemini (request.ts: generationConfig, toolConfig, thinkingConfig), named
 * as `supported_parameters` names them. Gemini cannot turn parallel calls off, and has no min_p, repetition
 * penalty, logprobs, logit_bias or verbosity here (dropped with a warning).
 */
export const GEMINI_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "temperature",
  "top_p",
  "top_k",
  "frequency_penalty",
  "presence_penalty",
  "seed",
  "stop",
  "max_tokens",
  "response_format",
  "structured_outputs",
  "reasoning",
]);
