/** Bedrock adapter test doubles: prepared endpoints for a model id, without any credentials lookup. */
import type { UpstreamTarget } from "../../../../core/registry/provider.ts";
import { type BedrockEndpoint, endpointTraits } from "../../../../providers/bedrock/endpoint.ts";
import { fixedCredentials } from "../../../../providers/bedrock/credentials.ts";
import { readBedrockOptions } from "../../../../providers/bedrock/options.ts";
import { target } from "../helpers.ts";

export const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
export const OLD_CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0";
export const LLAMA = "meta.llama3-1-70b-instruct-v1:0";
export const NOVA = "amazon.nova-pro-v1:0";

/** An endpoint for `model` with fixed static credentials. */
export function endpointFor(model: string, options: Record<string, unknown> = {}): BedrockEndpoint {
  return {
    region: "us-east-1",
    converseUrl: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(model)}/converse`,
    streamUrl: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(model)}/converse-stream`,
    invokeUrl: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(model)}/invoke`,
    credentials: fixedCredentials({ kind: "sigv4", credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" } }),
    traits: endpointTraits(model, readBedrockOptions(options)),
    options: readBedrockOptions(options),
  };
}

/** A Bedrock target (region, static credentials) for `model`. */
export function bedrockTarget(model: string, overrides: Partial<UpstreamTarget> = {}): UpstreamTarget {
  return target({ providerId: "aws", baseUrl: "", apiKey: undefined, upstreamModel: model, region: "us-east-1", credentials: { access_key_id: "AKIDEXAMPLE", secret_access_key: "secret" }, ...overrides });
}
