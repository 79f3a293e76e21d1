/**
 * `embed` of the `azure` adapter (README "Embeddings and rerank"): OpenAI's embeddings call on an Azure deployment —
 * `{base_url}/deployments/{upstream_model}/embeddings?api-version=…` in the deployments style, `{base_url}/embeddings`
 * with the deployment as `model` in the v1 style — with Azure's authentication (`api-key` or an Entra token) and
 * error dialect, through the same fetch as its chat calls (./transport.ts).
 */
import type { EmbeddingCall, EmbeddingResult } from "../../core/sdk/index.ts";
import { openAiEmbeddings, openAiEmbeddingsBody } from "../../core/sdk/provider.ts";
import type { AzureOptions } from "./options.ts";
import { planOf } from "./plan.ts";
import { azureHelpers } from "./transport.ts";

export function azureEmbed(call: EmbeddingCall): Promise<EmbeddingResult> {
  const plan = planOf(call.target);
  const root = call.target.baseUrl.replace(/\/+$/, "");
  const deployments = (call.target.options as AzureOptions).api_version !== undefined;
  const url = deployments ? `${root}/deployments/${encodeURIComponent(call.target.upstreamModel)}/embeddings` : `${root}/embeddings`;
  const azure: EmbeddingCall = { ...call, target: plan.inner, helpers: azureHelpers(call.helpers, plan) };
  return openAiEmbeddings(azure, url, plan.inner.headers, openAiEmbeddingsBody(azure));
}
