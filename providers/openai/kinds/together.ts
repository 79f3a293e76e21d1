/**
 * Together (`api.together.xyz/v1`): `logprobs` is the number of top tokens (0–20), not a switch, so `logprobs: true`
 * with `top_logprobs: k` is sent as `logprobs: k` (1 without k); hybrid models switch reasoning with
 * `reasoning: {enabled}`; the reasoning comes back in `message.reasoning`.
 */
import { applyReasoning } from "../request.ts";
import { type KindSpec, reasoningWanted } from "./shared.ts";

export const together: KindSpec = {
  description: "Together AI",
  defaultBaseUrl: "https://api.together.xyz/v1",
  requiresKey: true,
  quirks: {
    ownsReasoning: true,
    request(body, call) {
      applyReasoning(body, call.request, call.request.warnings, true);
      if (body.logprobs === true) body.logprobs = Math.min(20, Math.max(1, body.top_logprobs ?? 1)) as unknown as boolean;
      else if (body.logprobs === false) delete body.logprobs;
      delete body.top_logprobs;
      const wanted = reasoningWanted(call);
      if (wanted !== undefined) body.reasoning = { enabled: wanted };
      if (wanted === false && body.reasoning_effort === "none") delete body.reasoning_effort;
    },
  },
};
