/**
 * One configured Bedrock endpoint, prepared once at start-up (`prepareTarget`, README "Cloud providers"): its region
 * (required: calls are signed for it), the Converse and ConverseStream URLs (the base URL, by default
 * `https://bedrock-runtime.{region}.amazonaws.com`, then `/model/{modelId}/…` with the model id URL-encoded, as an
 * inference profile `us.anthropic.…:0` or an ARN must be), where its credentials come from (./credentials.ts), and what
 * its model can do (./models.ts). A bad entry stops start-up with the field named; nothing here is recomputed per call.
 */
import type { ProviderCall, UpstreamTarget } from "../../core/sdk/index.ts";
import { AmbientCredentials, ambientCredentials, CredentialError, type CredentialEnvironment, type CredentialSource, fixedCredentials } from "./credentials.ts";
import { modelTraits, type ModelTraits } from "./models.ts";
import { readBedrockOptions, type ReadOptions } from "./options.ts";

export interface BedrockEndpoint {
  region: string;
  converseUrl: string;
  streamUrl: string;
  /** InvokeModel (`/model/{id}/invoke`): the embedding models' API. */
  invokeUrl: string;
  credentials: CredentialSource;
  traits: ModelTraits;
  options: ReadOptions;
}

const prepared = new WeakMap<UpstreamTarget, BedrockEndpoint>();

/** The AWS endpoint of a region. */
export function defaultBaseUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}

/**
 * Checks the entry and returns the target with its base URL completed; throws `Error("<field>: <problem>")`.
 * `environment` replaces the process's for the ambient credential chain (tests).
 */
export function prepareBedrockTarget(target: UpstreamTarget, environment?: CredentialEnvironment): UpstreamTarget {
  const region = target.region;
  if (region === undefined || region === "") throw new Error("region: required by the bedrock adapter (the AWS region its calls are signed for, e.g. us-east-1)");
  const baseUrl = (target.baseUrl || defaultBaseUrl(region)).replace(/\/+$/, "");
  const model = `${baseUrl}/model/${encodeURIComponent(target.upstreamModel)}`;
  const options = readBedrockOptions(target.options);
  const endpoint: BedrockEndpoint = {
    region,
    converseUrl: `${model}/converse`,
    streamUrl: `${model}/converse-stream`,
    invokeUrl: `${model}/invoke`,
    credentials: credentialSource(target, environment),
    traits: endpointTraits(target.upstreamModel, options),
    options,
  };
  const out: UpstreamTarget = { ...target, baseUrl };
  prepared.set(out, endpoint);
  return out;
}

/** What the model can do, the provider's `structured_output` option overriding the guess from its id. */
export function endpointTraits(upstreamModel: string, options: ReadOptions): ModelTraits {
  const traits = modelTraits(upstreamModel);
  return options.structuredOutput === undefined ? traits : { ...traits, structuredOutput: options.structuredOutput };
}

function credentialSource(target: UpstreamTarget, environment: CredentialEnvironment | undefined): CredentialSource {
  const { apiKey, credentials } = target;
  if (apiKey !== undefined && credentials !== undefined) {
    throw new Error("api_key: a Bedrock entry takes api_key (a Bedrock API key) or credentials (AWS access keys), not both");
  }
  if (apiKey !== undefined) return fixedCredentials({ kind: "bearer", token: apiKey });
  if (credentials !== undefined) {
    const accessKeyId = credentials.access_key_id;
    const secretAccessKey = credentials.secret_access_key;
    if (!accessKeyId) throw new Error("credentials.access_key_id: required");
    if (!secretAccessKey) throw new Error("credentials.secret_access_key: required");
    const sessionToken = credentials.session_token;
    return fixedCredentials({ kind: "sigv4", credentials: sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey } });
  }
  const ambient = environment === undefined ? ambientCredentials : new AmbientCredentials(environment);
  try {
    ambient.auth(Date.now());
  } catch (thrown) {
    if (thrown instanceof CredentialError) throw new Error(`credentials: ${thrown.message}`);
    throw thrown;
  }
  return ambient;
}

/**
 * The prepared endpoint of a call. A target the catalog did not prepare (the adapter called directly, as the
 * conformance kit does) is prepared on first use; a bad one is a retryable 502 naming the field, never a crash.
 */
export function endpointOf(call: Pick<ProviderCall, "target" | "helpers">): BedrockEndpoint {
  const known = prepared.get(call.target);
  if (known !== undefined) return known;
  let endpoint: BedrockEndpoint | undefined;
  try {
    endpoint = prepared.get(prepareBedrockTarget(call.target));
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    throw call.helpers.error("provider_unavailable", `Bedrock provider ${call.target.providerId} is misconfigured: ${message}`, { status: 502, retryable: true });
  }
  prepared.set(call.target, endpoint!);
  return endpoint!;
}
