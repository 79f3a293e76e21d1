/**
 * Fireworks (`api.fireworks.ai/inference/v1`): `presence_penalty`, `frequency_penalty` and `logit_bias` are not
 * supported, so they are dropped with a warning; the prompt cache key is `prompt_cache_isolation_key`; reasoning
 * comes back in `reasoning_content` and is asked for with `reasoning_effort` (`none` switches it off); usage arrives
 * with the last chunk of a stream.
 */
import { applyReasoning } from "../request.ts";
import { dropRefused, type KindSpec, reasoningWanted } from "./shared.ts";

export const FIREWORKS_REFUSED = Object.freeze(["presence_penalty", "frequency_penalty", "logit_bias"]);

export const fireworks: KindSpec = {
  description: "Fireworks AI",
  defaultBaseUrl: "https://api.fireworks.ai/inference/v1",
  requiresKey: true,
  unsupported: FIREWORKS_REFUSED,
  quirks: {
    ownsReasoning: true,
    request(body, call) {
      applyReasoning(body, call.request, call.request.warnings, true);
      dropRefused(body, FIREWORKS_REFUSED, "Fireworks", call.request.warnings);
      if (body.prompt_cache_key !== undefined) {
        body.prompt_cache_isolation_key = body.prompt_cache_key;
        delete body.prompt_cache_key;
      }
      if (reasoningWanted(call) === false) body.reasoning_effort = "none";
    },
  },
};
