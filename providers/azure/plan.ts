/**
 * What one Azure target needs on every call, worked out once per target (targets are fixed after start-up): which
 * translation to use, the target that translation is given (Azure's URL root for the chosen URL style, no bearer key,
 * the `api-key` header), the `api-version` query of the deployments style, and the Entra token source.
 *
 * URL styles (README "Azure OpenAI"):
 * - v1: `base_url` is `https://{resource}.openai.azure.com/openai/v1`; the translation appends `/chat/completions` or
 *   `/responses` and sends the deployment as `model`.
 * - deployments: `base_url` ends in `/openai` and `api_version` is set; chat completions go to
 *   `{base_url}/deployments/{upstream_model}/chat/completions?api-version=…`, Responses to
 *   `{base_url}/responses?api-version=…` (the deployment as `model`, as Azure's dated Responses API takes it).
 */
import type { ModuleHelpers, UpstreamTarget } from "../../core/sdk/index.ts";
import { EntraTokens } from "./entra.ts";
import type { AzureOptions, EntraCredentials } from "./options.ts";

export interface AzurePlan {
  api: "chat" | "responses";
  /** The target the OpenAI translation is called with. */
  inner: UpstreamTarget;
  /** `api-version=…`, appended to every URL (deployments style), or undefined (v1). */
  query: string | undefined;
  /** Bearer tokens from Microsoft Entra ID, or undefined when the `api-key` header authenticates. */
  tokens: EntraTokens | undefined;
  /** The call helpers with Azure's fetch in place, per helpers object the gateway hands out. */
  helpers: WeakMap<ModuleHelpers, ModuleHelpers>;
}

const plans = new WeakMap<UpstreamTarget, AzurePlan>();
/** One token cache per configured credential (every model of a provider shares its options object). */
const tokenSources = new WeakMap<EntraCredentials, EntraTokens>();

export function planOf(target: UpstreamTarget): AzurePlan {
  let plan = plans.get(target);
  if (plan === undefined) {
    plan = buildPlan(target);
    plans.set(target, plan);
  }
  return plan;
}

function buildPlan(target: UpstreamTarget): AzurePlan {
  const options = target.options as AzureOptions;
  const api = options.api ?? "chat";
  const root = target.baseUrl.replace(/\/+$/, "");
  const deployments = options.api_version !== undefined;
  const baseUrl = deployments && api === "chat" ? `${root}/deployments/${encodeURIComponent(target.upstreamModel)}` : root;
  const headers = options.entra === undefined && target.apiKey !== undefined ? { "api-key": target.apiKey, ...target.headers } : { ...target.headers };
  return {
    api,
    inner: Object.freeze({ ...target, baseUrl, apiKey: undefined, headers }),
    query: deployments ? `api-version=${encodeURIComponent(options.api_version!)}` : undefined,
    tokens: options.entra === undefined ? undefined : tokensFor(options.entra, target.providerId),
    helpers: new WeakMap(),
  };
}

function tokensFor(credentials: EntraCredentials, providerId: string): EntraTokens {
  let tokens = tokenSources.get(credentials);
  if (tokens === undefined) {
    tokens = new EntraTokens(credentials, providerId);
    tokenSources.set(credentials, tokens);
  }
  return tokens;
}
