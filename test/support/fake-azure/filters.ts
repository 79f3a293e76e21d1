/**
 * Azure's content-filter annotations (README "Azure OpenAI"; Azure's "Content filtering" documentation): per category
 * `{filtered, severity}` (hate, self_harm, sexual, violence) or `{filtered, detected}` (jailbreak on prompts,
 * protected material on completions). Prompts are annotated in `prompt_filter_results` (chat) or the `prompt` entry of
 * `content_filters` (Responses), completions on each choice (`content_filter_results`) or the `completion` entry.
 */
const severity = (level: "safe" | "low" | "medium" | "high", filtered = false) => ({ filtered, severity: level });
const detection = (detected = false, filtered = false) => ({ filtered, detected });

export const PROMPT_SAFE = {
  hate: severity("safe"),
  jailbreak: detection(),
  self_harm: severity("safe"),
  sexual: severity("safe"),
  violence: severity("safe"),
};

export const COMPLETION_SAFE = {
  hate: severity("safe"),
  protected_material_code: detection(),
  protected_material_text: detection(),
  self_harm: severity("safe"),
  sexual: severity("safe"),
  violence: severity("safe"),
};

/** A completion the filter stopped: violence at medium severity, filtered. */
export const COMPLETION_FILTERED = { ...COMPLETION_SAFE, violence: severity("medium", true) };

/** A prompt the filter refused: self-harm at high severity, filtered. */
export const PROMPT_FILTERED = { ...PROMPT_SAFE, self_harm: severity("high", true) };

/** Chat completions' `prompt_filter_results`. */
export const promptFilterResults = (results: object = PROMPT_SAFE) => [{ prompt_index: 0, content_filter_results: results }];

/** The Responses API's `content_filters`: the prompt's entry, then the completion's. */
export function responsesContentFilters(completion: object = COMPLETION_SAFE, blocked = false) {
  return [
    { blocked: false, source_type: "prompt", content_filter_raw: [], content_filter_results: PROMPT_SAFE, content_filter_offsets: { start_offset: 0, end_offset: 120, check_offset: 0 } },
    { blocked, source_type: "completion", content_filter_raw: [], content_filter_results: completion, content_filter_offsets: { start_offset: 0, end_offset: 64, check_offset: 0 } },
  ];
}

/** The 400 of a prompt the filter refused, as chat completions answers it. */
export const CHAT_PROMPT_REFUSAL = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
    type: null,
    param: "prompt",
    code: "content_filter",
    status: 400,
    innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: PROMPT_FILTERED },
  },
};

/** The same refusal from the Responses API: the details in `content_filters`, no `innererror`. */
export const RESPONSES_PROMPT_REFUSAL = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
    type: "invalid_request_error",
    param: "prompt",
    code: "content_filter",
    content_filters: [{ blocked: true, source_type: "prompt", content_filter_raw: [], content_filter_results: PROMPT_FILTERED }],
  },
};
