/**
 * Request parameters the adapter sends to Azure, named as `supported_parameters` names them: OpenAI's chat
 * completions without the open-model samplers Azure refuses (`top_k`, `min_p`, `repetition_penalty`: ./request.ts).
 * A provider on the Responses API (`"api": "responses"`) honours fewer (no seed, stop, penalties or logit bias); a
 * model entry's own `supported_parameters` narrows the list.
 */
export const AZURE_PARAMETERS = Object.freeze([
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "frequency_penalty",
  "presence_penalty",
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
