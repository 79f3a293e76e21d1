/**
 * The `azure` provider adapter: Azure OpenAI, over chat completions or the Responses API, with the v1 or the
 * deployments-style URLs, authenticated by the `api-key` header or Microsoft Entra ID bearer tokens (README
 * "Azure OpenAI"). Azure speaks OpenAI's wire, so the translation is the `openai` and `openai-responses` adapters'
 * own, called with Azure's target and fetch (./plan.ts, ./transport.ts): the same bodies, streams and results by
 * construction, content-filter stops included (`finish_reason: "content_filter"`, Responses `incomplete_details`).
 * What is Azure's own: its URLs and credentials, its error replies (./errors.ts), and what its schema refuses
 * (./request.ts).
 *
 * The two translations are handed in by the barrel that registers the built-ins (providers/index.ts), which is the one
 * place that may name several adapters; `requires` says so to the registry.
 */
import { defineProvider, type ProviderAdapter, type ProviderCall } from "../../core/sdk/index.ts";
import { translate } from "../../core/sdk/provider.ts";
import { azureEmbed } from "./embed.ts";
import { azureOptionsSchema } from "./options.ts";
import { AZURE_PARAMETERS } from "./parameters.ts";
import { planOf } from "./plan.ts";
import { forAzureChat } from "./request.ts";
import { azureCall } from "./transport.ts";

/** The translations Azure's two APIs use: chat completions (`openai`) and Responses (`openai-responses`). */
export interface AzureTranslations {
  chat: Pick<ProviderAdapter, "generate" | "stream">;
  responses: Pick<ProviderAdapter, "generate" | "stream">;
}

export function azureAdapter(translations: AzureTranslations) {
  /** The translation for the target's API, and the call it is given. */
  const route = (call: ProviderCall) => {
    const plan = planOf(call.target);
    if (plan.api === "chat") return { translation: translations.chat, call: azureCall(call, plan, translate(call, forAzureChat)) };
    return { translation: translations.responses, call: azureCall(call, plan, call.request) };
  };
  return defineProvider({
    id: "azure",
    description: "Azure OpenAI (chat completions or the Responses API; v1 or deployments URLs; api-key or Microsoft Entra ID)",
    optionsSchema: azureOptionsSchema,
    supportedParameters: AZURE_PARAMETERS,
    requires: { providers: ["openai", "openai-responses"] },
    generate(call) {
      const routed = route(call);
      return routed.translation.generate(routed.call);
    },
    stream(call) {
      const routed = route(call);
      return routed.translation.stream(routed.call);
    },
    embed: azureEmbed,
  });
}
