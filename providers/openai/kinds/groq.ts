/**
 * Groq (`api.groq.com/openai/v1`): `logprobs`, `top_logprobs`, `logit_bias` and names on messages are refused with a
 * 400, so they are dropped with a warning; reasoning is asked for with `reasoning_format` (`parsed`: the reasoning
 * in `message.reasoning`, `hidden`: none; `include_reasoning` for its gpt-oss models, which refuse the former);
 * streamed usage may come in `x_groq.usage` of the last chunk.
 */
import type { ReplyQuirk } from "../quirks.ts";
import type { ChatCompletion, WireUsage } from "../wire.ts";
import { applyReasoning } from "../request.ts";
import { dropRefused, type KindSpec, reasoningWanted, stripMessageNames } from "./shared.ts";

export const GROQ_REFUSED = Object.freeze(["logprobs", "top_logprobs", "logit_bias"]);

const reply: ReplyQuirk = {
  chunk(chunk: ChatCompletion & { x_groq?: { usage?: WireUsage } }) {
    if (chunk.usage == null && chunk.x_groq?.usage) chunk.usage = chunk.x_groq.usage;
  },
};

export const groq: KindSpec = {
  description: "Groq",
  defaultBaseUrl: "https://api.groq.com/openai/v1",
  requiresKey: true,
  unsupported: GROQ_REFUSED,
  quirks: {
    ownsReasoning: true,
    request(body, call) {
      applyReasoning(body, call.request, call.request.warnings, true);
      const warnings = call.request.warnings;
      dropRefused(body, GROQ_REFUSED, "Groq", warnings);
      stripMessageNames(body, "Groq", warnings);
      const wanted = reasoningWanted(call);
      if (wanted === undefined) return;
      if (call.target.upstreamModel.includes("gpt-oss")) body.include_reasoning = wanted;
      else body.reasoning_format = wanted ? "parsed" : "hidden";
    },
    reply: () => reply,
  },
};
