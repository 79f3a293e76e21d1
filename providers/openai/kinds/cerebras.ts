/**
 * Cerebras (`api.cerebras.ai/v1`): `frequency_penalty`, `presence_penalty`, `logit_bias`, `parallel_tool_calls` and
 * `service_tier` are refused with a 400, so they are dropped with a warning; reasoning is asked for with
 * `reasoning_format` (`parsed`: in `message.reasoning`, `hidden`: none).
 */
import { applyReasoning } from "../request.ts";
import { dropRefused, type KindSpec, reasoningWanted } from "./shared.ts";

export const CEREBRAS_REFUSED = Object.freeze(["frequency_penalty", "presence_penalty", "logit_bias", "parallel_tool_calls", "service_tier"]);

export const cerebras: KindSpec = {
  description: "Cerebras",
  defaultBaseUrl: "https://api.cerebras.ai/v1",
  requiresKey: true,
  unsupported: CEREBRAS_REFUSED,
  quirks: {
    ownsReasoning: true,
    request(body, call) {
      applyReasoning(body, call.request, call.request.warnings, true);
      dropRefused(body, CEREBRAS_REFUSED, "Cerebras", call.request.warnings);
      const wanted = reasoningWanted(call);
      if (wanted !== undefined) body.reasoning_format = wanted ? "parsed" : "hidden";
      if (wanted === false && body.reasoning_effort === "none") delete body.reasoning_effort;
    },
  },
};
