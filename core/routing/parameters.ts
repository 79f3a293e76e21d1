/**
 * The request parameters a client actually sent, named as endpoints declare them in `supported_parameters`
 *. Derived from the canonical request, so every wire format is covered alike.
 */
import type { CanonicalRequest } from "../model/request.ts";

/** `supported_parameters` names of everything set on the request. */
export function sentParameters(request: CanonicalRequest): string[] {
  const sent: string[] = [];
  const add = (name: string, present: boolean) => {
    if (present) sent.push(name);
  };
  add("tools", usesTools(request));
  add("tool_choice", request.toolChoice !== undefined);
  add("parallel_tool_calls", request.parallelToolCalls !== undefined);
  const s = request.sampling;
  add("temperature", s.temperature !== undefined);
  add("top_p", s.topP !== undefined);
  add("top_k", s.topK !== undefined);
  add("min_p", s.minP !== undefined);
  add("frequency_penalty", s.frequencyPenalty !== undefined);
  add("presence_penalty", s.presencePenalty !== undefined);
  add("repetition_penalty", s.repetitionPenalty !== undefined);
  add("seed", s.seed !== undefined);
  add("stop", s.stop !== undefined && s.stop.length > 0);
  add("logprobs", s.logprobs === true);
  add("top_logprobs", s.topLogprobs !== undefined);
  add("logit_bias", s.logitBias !== undefined);
  add("max_tokens", request.maxTokens !== undefined);
  const format = request.output?.format?.type;
  add("response_format", format === "json_object" || format === "json_schema");
  add("structured_outputs", format === "json_schema");
  add("verbosity", request.output?.verbosity !== undefined);
  add("reasoning", request.reasoning !== undefined);
  add("top_a", request.passthrough?.top_a !== undefined);
  return sent;
}

/** Whether the request offers the model client-run function tools (server tools run in the gateway). */
export function usesTools(request: CanonicalRequest): boolean {
  return request.tools.some((tool) => tool.kind === "function");
}
