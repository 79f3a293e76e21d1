/**
 * What one Vertex target needs on every call, worked out once per target (targets are fixed after start-up): the
 * model's publisher and so the translation to use, the target that translation is given (its URL root under Vertex's
 * model path, no API key), the Vertex URLs of the two operations, and the token source shared by the provider's models.
 *
 * URLs (README "Google Vertex AI"): `{base}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}`
 * then `:generateContent` / `:streamGenerateContent?alt=sse` (Gemini, built by the Gemini translation from the root
 * `…/publishers/google`), `:predict` (Google's text-embedding models) or `:rawPredict` / `:streamRawPredict` (Claude). The base is `base_url`, else
 * `https://{location}-aiplatform.googleapis.com`, or `https://aiplatform.googleapis.com` for the `global` location.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import type { ModuleHelpers, UpstreamTarget } from "../../core/sdk/index.ts";
import { FixedToken, GoogleTokens, metadataGrant, serviceAccountGrant, type SigningKey, type TokenSource } from "./tokens.ts";
import { GOOGLE_TOKEN_URL, publisherOf, type Publisher, type ServiceAccount, VERTEX_ANTHROPIC_VERSION, type VertexOptions } from "./options.ts";

export interface VertexPlan {
  publisher: Publisher;
  /** The target the translation is called with. */
  inner: UpstreamTarget;
  /** Claude's `:rawPredict` and `:streamRawPredict` URLs (the Gemini translation builds its own from `inner`). */
  rawPredictUrl: string;
  streamRawPredictUrl: string;
  /** A Google embedding model's `:predict` URL (./embed.ts). */
  predictUrl: string;
  /** The start of the Anthropic translation's body (`{"model":"…",`) and what Vertex takes in its place. */
  modelPrefix: string;
  versionPrefix: string;
  anthropicVersion: string;
  tokens: TokenSource;
  /** The call helpers with Vertex's fetch in place, per helpers object the gateway hands out and per operation. */
  helpers: { generate: WeakMap<ModuleHelpers, ModuleHelpers>; stream: WeakMap<ModuleHelpers, ModuleHelpers> };
}

const plans = new WeakMap<UpstreamTarget, VertexPlan>();
/** One token source per configured credential (every model of a provider shares its options object). */
const tokenSources = new WeakMap<object, TokenSource>();

/** Vertex's public endpoint for a location. */
export function defaultBaseUrl(location: string): string {
  return location === "global" ? "https://aiplatform.googleapis.com" : `https://${location}-aiplatform.googleapis.com`;
}

/** The location of a target: the adapter option, else the catalog's `region` (which the config fills from `location`). */
function locationOf(target: UpstreamTarget): string | undefined {
  return (target.options as VertexOptions).location ?? target.region;
}

/**
 * Checks the target's fields and returns it with its base URL completed; throws `Error("<field>: <problem>")`, which
 * the catalog turns into a start-up refusal naming the provider entry's field.
 */
export function prepareVertexTarget(target: UpstreamTarget): UpstreamTarget {
  const location = locationOf(target);
  if (location === undefined || location === "") throw new Error("location: required by the vertex adapter (a Vertex AI location, e.g. us-central1 or global)");
  const options = target.options as VertexOptions;
  if (!options.project && !options.service_account?.project_id) throw new Error("project: required by the vertex adapter (or a service-account key that names its project_id)");
  const out: UpstreamTarget = { ...target, baseUrl: (target.baseUrl || defaultBaseUrl(location)).replace(/\/+$/, ""), region: location };
  plans.set(out, buildPlan(out, location));
  return out;
}

/** The plan of a target, built on first use for one the catalog did not prepare (the adapter called directly). */
export function planOf(target: UpstreamTarget): VertexPlan {
  let plan = plans.get(target);
  if (plan === undefined) {
    const prepared = prepareVertexTarget(target);
    plan = plans.get(prepared)!;
    plans.set(target, plan);
  }
  return plan;
}

/** The plan of a call's target; a target that cannot be planned is a retryable 502 naming the provider. */
export function planForCall(call: { target: UpstreamTarget; helpers: ModuleHelpers }): VertexPlan {
  try {
    return planOf(call.target);
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    throw call.helpers.error("provider_unavailable", `Vertex AI provider ${call.target.providerId} is misconfigured: ${message}`, { status: 502, retryable: true });
  }
}

function buildPlan(target: UpstreamTarget, location: string): VertexPlan {
  const options = target.options as VertexOptions;
  const project = options.project ?? options.service_account!.project_id!;
  const publisher = publisherOf(options, target.upstreamModel);
  const root = `${target.baseUrl}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers/${publisher}`;
  // `claude-sonnet-4-5@20250929`: the version's `@` travels as it is, as Google's and Anthropic's clients send it.
  const model = `${root}/models/${encodeURIComponent(target.upstreamModel).replaceAll("%40", "@")}`;
  const anthropicVersion = options.anthropic_version ?? VERTEX_ANTHROPIC_VERSION;
  return {
    publisher,
    // No API key: the bearer token is added by ./transport.ts after the translation built the body.
    inner: Object.freeze({ ...target, baseUrl: publisher === "google" ? root : model, apiKey: undefined }),
    rawPredictUrl: `${model}:rawPredict`,
    streamRawPredictUrl: `${model}:streamRawPredict`,
    predictUrl: `${model}:predict`,
    modelPrefix: `{"model":${JSON.stringify(target.upstreamModel)},`,
    versionPrefix: `{"anthropic_version":${JSON.stringify(anthropicVersion)},`,
    anthropicVersion,
    tokens: tokensFor(options, target.providerId),
    helpers: { generate: new WeakMap(), stream: new WeakMap() },
  };
}

function tokensFor(options: VertexOptions, providerId: string): TokenSource {
  if (options.service_account === undefined && options.metadata_server !== true) {
    if (options.access_token === undefined) throw new Error("credentials: the vertex adapter needs a service-account key, the metadata server or an access token");
    return new FixedToken(options.access_token);
  }
  // The key object, or the provider's options object for the metadata server: one cache per configured credential.
  const credential: object = options.service_account ?? options;
  let tokens = tokenSources.get(credential);
  if (tokens === undefined) {
    const grant = options.service_account !== undefined ? serviceAccountGrant(signingKey(options.service_account, options.token_url)) : metadataGrant(options.token_url);
    tokens = new GoogleTokens(grant, providerId);
    tokenSources.set(credential, tokens);
  }
  return tokens;
}

/** The key file's signing identity; a key that is not an RSA private key in PEM stops start-up naming the field. */
function signingKey(account: ServiceAccount, tokenUrl: string | undefined): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: account.private_key, format: "pem" });
  } catch {
    throw new Error("credentials.service_account.private_key: not a PEM private key");
  }
  if (key.asymmetricKeyType !== "rsa") throw new Error("credentials.service_account.private_key: not an RSA key (Google service-account keys are RSA)");
  return { clientEmail: account.client_email, keyId: account.private_key_id || undefined, key, tokenUrl: tokenUrl ?? account.token_uri ?? GOOGLE_TOKEN_URL };
}
