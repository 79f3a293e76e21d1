/**
 * The kinds of the `openai` adapter (README "OpenAI-compatible providers"): each a family of OpenAI-compatible
 * servers with its base URL, key rule and quirks in ./<kind>.ts, built into its own calls once at start-up.
 */
import type { ProviderKind } from "../../../core/sdk/index.ts";
import { chatCalls } from "../chat-calls.ts";
import { OPENAI_PARAMETERS } from "../parameters.ts";
import { type ChatQuirks, combineReplies } from "../quirks.ts";
import { thinkTagsReply } from "../think-tags.ts";
import { cerebras } from "./cerebras.ts";
import { deepseek } from "./deepseek.ts";
import { fireworks } from "./fireworks.ts";
import { groq } from "./groq.ts";
import { llamacpp, lmstudio, ollama, sglang, vllm } from "./local.ts";
import { mistral } from "./mistral.ts";
import { openrouter } from "./openrouter.ts";
import { perplexity } from "./perplexity.ts";
import { listServedModels, type KindSpec } from "./shared.ts";
import { together } from "./together.ts";
import { xai } from "./xai.ts";

export const KIND_SPECS: Readonly<Record<string, KindSpec>> = Object.freeze({
  deepseek,
  mistral,
  groq,
  cerebras,
  together,
  fireworks,
  xai,
  perplexity,
  openrouter,
  ollama,
  vllm,
  sglang,
  lmstudio,
  llamacpp,
});

/** A kind's quirks with option `think_tags` (any kind may serve a model that writes its reasoning inline). */
export function withThinkTags(quirks: ChatQuirks): ChatQuirks {
  const reply = quirks.reply;
  return {
    ...quirks,
    reply: (call) => combineReplies(call.target.options.think_tags === true ? thinkTagsReply() : undefined, reply?.(call)),
  };
}

function kindOf(spec: KindSpec): ProviderKind {
  return {
    description: spec.description,
    defaultBaseUrl: spec.defaultBaseUrl,
    requiresKey: spec.requiresKey,
    ...chatCalls(withThinkTags(spec.quirks)),
    // What `/models` lists and `provider.require_parameters` routes by: the adapter's, less what this server refuses.
    supportedParameters: OPENAI_PARAMETERS.filter((name) => !(spec.unsupported ?? []).includes(name)),
    ...(spec.discovers === true ? { discoverModels: listServedModels } : {}),
    ...(spec.embed ? { embed: spec.embed } : {}),
  };
}

export const OPENAI_KINDS: Readonly<Record<string, ProviderKind>> = Object.freeze(Object.fromEntries(Object.entries(KIND_SPECS).map(([name, spec]) => [name, kindOf(spec)])));
