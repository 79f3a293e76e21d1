/**
 * What Azure's chat completions refuses of what the OpenAI translation would send. Azure validates the request
 * against its own schema: an unknown top-level field is a 400 ("Unrecognized request argument supplied: top_k") and
 * so is an unknown field of a message ("Additional properties are not allowed ('reasoning_details' was unexpected)").
 * So the open-model samplers (`top_k`, `min_p`, `repetition_penalty`) and reasoning replayed in assistant turns are
 * left out here, each with a warning (README "Strict mode" turns them into a 422), before the translation runs.
 * The Responses API leaves out those samplers by itself and carries reasoning items back as they are.
 */
import type { CanonicalRequest, Message, SamplingSettings } from "../../core/sdk/index.ts";
import { warnUnsupported } from "../../core/sdk/provider.ts";

const SAMPLERS: ReadonlyArray<readonly [keyof SamplingSettings, string]> = [
  ["topK", "top_k"],
  ["minP", "min_p"],
  ["repetitionPenalty", "repetition_penalty"],
];

/** The request as Azure's chat completions can take it; the same object when nothing had to go (the usual case). */
export function forAzureChat(request: CanonicalRequest): CanonicalRequest {
  const sampling = withoutSamplers(request);
  const messages = withoutReasoning(request);
  return sampling === request.sampling && messages === request.messages ? request : { ...request, sampling, messages };
}

function withoutSamplers(request: CanonicalRequest): SamplingSettings {
  let sampling = request.sampling;
  for (const [key, field] of SAMPLERS) {
    if (sampling[key] === undefined) continue;
    if (sampling === request.sampling) sampling = { ...sampling };
    delete sampling[key];
    warnUnsupported(request.warnings, field, `${field} is not supported by Azure OpenAI and was not sent`);
  }
  return sampling;
}

/** Assistant turns without their reasoning parts (Azure's chat completions has no field to carry them back in). */
function withoutReasoning(request: CanonicalRequest): Message[] {
  const carries = (message: Message) => message.role === "assistant" && message.parts.some((part) => part.type === "reasoning");
  if (!request.messages.some(carries)) return request.messages;
  warnUnsupported(request.warnings, "messages.assistant.reasoning", "Reasoning in assistant turns cannot be sent back to Azure OpenAI chat completions and was dropped");
  return request.messages.map((message) => (carries(message) ? { ...message, parts: message.parts.filter((part) => part.type !== "reasoning") } : message));
}
