/**
 * The Azure OpenAI fields of a provider entry (README "Azure OpenAI"): `api_version` (the deployments-style URLs),
 * `api` (chat completions or Responses), `entra` (Microsoft Entra ID client credentials instead of `api_key`).
 * Checked once at start-up, secrets read from the environment, and handed to the `azure` adapter as its options.
 */
import { Type, type Static } from "@sinclair/typebox";

const Secret = Type.Union([Type.String({ minLength: 1 }), Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false })]);

/** `entra`: the client-credentials grant of an app registration (tenant, client id, secret; the token URL for tests). */
export const AzureEntraSchema = Type.Object(
  {
    tenant_id: Type.String({ minLength: 1 }),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Secret,
    /** Default `https://login.microsoftonline.com/{tenant_id}/oauth2/v2.0/token`. */
    token_url: Type.Optional(Type.String({ pattern: "^https?://" })),
  },
  { additionalProperties: false },
);

/** The provider-entry fields only the `azure` adapter reads. */
export const AzureProviderFields = {
  /** Deployments-style URLs: `{base_url}/deployments/{upstream_model}/chat/completions?api-version=…`. */
  api_version: Type.Optional(Type.String({ minLength: 1 })),
  /** Which Azure API the provider's models are called with (default `chat`). */
  api: Type.Optional(Type.Union([Type.Literal("chat"), Type.Literal("responses")])),
  entra: Type.Optional(AzureEntraSchema),
};

interface AzureEntry {
  adapter: string;
  base_url?: string | undefined;
  api_key?: unknown;
  api_version?: string | undefined;
  api?: "chat" | "responses" | undefined;
  entra?: Static<typeof AzureEntraSchema> | undefined;
}

/** What the adapter receives in its options (the secret already read). */
export interface AzureOptions {
  api_version?: string;
  api?: "chat" | "responses";
  entra?: { tenant_id: string; client_id: string; client_secret: string; token_url?: string };
}

/**
 * The adapter options the Azure fields make, or undefined for another adapter (which may not use them). Refuses,
 * naming the field: credentials missing or doubled, and a base URL of the other style than `api_version` says.
 */
export function toAzureOptions(
  entry: AzureEntry,
  where: string,
  secret: (value: string | { env: string }, field: string) => string | undefined,
  fail: (message: string) => Error,
): AzureOptions | undefined {
  if (entry.adapter !== "azure") {
    for (const field of ["api_version", "api", "entra"] as const) {
      if (entry[field] !== undefined) throw fail(`invalid config field "${where}.${field}": only the "azure" adapter takes it`);
    }
    return undefined;
  }
  if (entry.api_key === undefined && entry.entra === undefined) throw fail(`invalid config field "${where}.api_key": the "azure" adapter needs api_key or entra`);
  if (entry.api_key !== undefined && entry.entra !== undefined) throw fail(`invalid config field "${where}.entra": give api_key or entra, not both`);
  const base = (entry.base_url ?? "").replace(/\/+$/, "");
  if (entry.api_version !== undefined && /\/v1$/.test(base)) {
    throw fail(`invalid config field "${where}.base_url": with api_version it is the deployments-style root ending in /openai, not the v1 API`);
  }
  if (entry.api_version === undefined && /\/openai$/.test(base)) {
    throw fail(`invalid config field "${where}.api_version": required with a deployments-style base_url ending in /openai (or use …/openai/v1)`);
  }
  const options: AzureOptions = {};
  if (entry.api_version !== undefined) options.api_version = entry.api_version;
  if (entry.api !== undefined) options.api = entry.api;
  if (entry.entra !== undefined) {
    const { tenant_id, client_id, token_url } = entry.entra;
    const client_secret = secret(entry.entra.client_secret, `${where}.entra.client_secret`);
    if (client_secret === undefined) throw fail(`invalid config field "${where}.entra.client_secret": required`);
    options.entra = token_url === undefined ? { tenant_id, client_id, client_secret } : { tenant_id, client_id, client_secret, token_url };
  }
  return options;
}
