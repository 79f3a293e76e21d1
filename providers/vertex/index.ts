/**
 * The `vertex` provider adapter: Google Vertex AI, for Gemini models (`publishers/google`, `:generateContent` and
 * `:streamGenerateContent?alt=sse`) and Claude models (`publishers/anthropic`, `:rawPredict` and `:streamRawPredict`),
 * authenticated by OAuth 2 access tokens from a service-account key or a fixed token (README "Google Vertex AI").
 * Vertex serves each publisher's own wire, so the translation is the `gemini` or `anthropic` adapter's own, called
 * with Vertex's target and fetch (./plan.ts, ./transport.ts): the same bodies, streams and results by construction
 * (thought signatures, signed thinking, cache control, usage). Embeddings are Vertex's own `:predict` call (./embed.ts). What is Vertex's own: its URLs, tokens and error
 * replies (./errors.ts), and what Claude on Vertex does not take (./request.ts).
 *
 * The two translations are handed in by the barrel that registers the built-ins (providers/index.ts), which is the one
 * place that may name several adapters; `requires` says so to the registry.
 */
import { Type, type TObject, type TProperties } from "@sinclair/typebox";
import { defineProvider, type ProviderAdapter, type ProviderCall } from "../../core/sdk/index.ts";
import { VERTEX_OPTION_FIELDS } from "./options.ts";
import { vertexEmbed } from "./embed.ts";
import { planForCall, prepareVertexTarget } from "./plan.ts";
import { forVertexAnthropic } from "./request.ts";
import { vertexCall } from "./transport.ts";

type Translation = Pick<ProviderAdapter, "generate" | "stream" | "optionsSchema" | "supportedParameters">;

/** The translations of Vertex's two publishers: Gemini (`gemini`) and Claude (`anthropic`). */
export interface VertexTranslations {
  gemini: Translation;
  anthropic: Translation;
}

/** The properties of a translation's options schema (an object schema), to accept its options beside Vertex's. */
function propertiesOf(translation: Translation): TProperties {
  const schema = translation.optionsSchema as TObject | undefined;
  return schema?.type === "object" && schema.properties !== undefined ? schema.properties : {};
}

export function vertexAdapter(translations: VertexTranslations) {
  /** The translation for the target's publisher, and the call it is given. */
  const route = (call: ProviderCall, operation: "generate" | "stream") => {
    const plan = planForCall(call);
    if (plan.publisher === "anthropic") return { translation: translations.anthropic, call: vertexCall(call, plan, forVertexAnthropic(call.request), operation) };
    return { translation: translations.gemini, call: vertexCall(call, plan, call.request, operation) };
  };
  const parameters = [...new Set([...(translations.gemini.supportedParameters ?? []), ...(translations.anthropic.supportedParameters ?? [])])];
  return defineProvider({
    id: "vertex",
    description: "Google Vertex AI (Gemini and Claude models; service-account or access-token OAuth)",
    optionsSchema: Type.Object({ ...propertiesOf(translations.gemini), ...propertiesOf(translations.anthropic), ...VERTEX_OPTION_FIELDS }, { additionalProperties: false }),
    // Gemini's and Claude's parameters: what a model's publisher does not take is warned by its translation.
    supportedParameters: Object.freeze(parameters),
    // Claude's limit (Anthropic's, for Vertex too); Gemini's is larger.
    maxMessages: 1_000,
    requires: { providers: ["gemini", "anthropic"] },
    prepareTarget: (target) => prepareVertexTarget(target),
    generate(call) {
      const routed = route(call, "generate");
      return routed.translation.generate(routed.call);
    },
    stream(call) {
      const routed = route(call, "stream");
      return routed.translation.stream(routed.call);
    },
    // Google's text-embedding models (`:predict`); Claude has none.
    embed: vertexEmbed,
  });
}
