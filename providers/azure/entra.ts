/**
 * Microsoft Entra ID access tokens for Azure OpenAI (the OAuth 2 client-credentials grant of an app registration,
 * scope `https://cognitiveservices.azure.com/.default`). One `EntraTokens` per configured credential: the token is
 * cached, renewed in the background a few minutes before it expires (requests keep using the current one meanwhile),
 * fetched in the foreground only when none is valid, and one token request serves every request waiting for it (the
 * provider kit's `CachedToken`). The client secret never leaves the form body: not in an error, not in a log line.
 */
import { CachedToken, type TokenContext, type TokenIssuer } from "../../core/sdk/provider.ts";
import type { EntraCredentials } from "./options.ts";

/** The audience of Azure OpenAI (Azure AI services) tokens. */
export const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

/** Entra's v2.0 token endpoint of a tenant (`entra.token_url` replaces it, e.g. for a sovereign cloud or a test). */
export function defaultTokenUrl(tenantId: string): string {
  return `https://login.microsoftonline.com/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
}

/** AADSTS codes that point at one configuration field. */
const FIELD_OF_CODE: Record<number, string> = {
  7000215: "entra.client_secret", // invalid client secret
  7000222: "entra.client_secret", // expired client secret
  700016: "entra.client_id", // application not found in the directory
  90002: "entra.tenant_id", // tenant not found
  900023: "entra.tenant_id", // tenant identifier is neither a GUID nor a domain
};

/** Entra's token issuer: the client-credentials form, and its refusals logged with the field to fix. */
function entraIssuer(credentials: EntraCredentials, providerId: string): TokenIssuer {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: credentials.client_id,
    client_secret: credentials.client_secret,
    scope: COGNITIVE_SERVICES_SCOPE,
  }).toString();
  return {
    url: credentials.token_url ?? defaultTokenUrl(credentials.tenant_id),
    init: () => Promise.resolve({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: form }),
    codePrefix: "entra_",
    endpointName: "Microsoft Entra ID",
    refuserName: "Microsoft Entra ID",
    // Entra's error body adds `error_codes` (AADSTS numbers): they name the field to fix.
    logRefusal(helpers, { status, error, body, transient }) {
      const codes = Array.isArray(body.error_codes) ? body.error_codes.filter((c): c is number => typeof c === "number") : [];
      const field = codes.map((code) => FIELD_OF_CODE[code]).find((f) => f !== undefined) ?? (error === "unauthorized_client" ? "entra.client_id" : error === "invalid_client" ? "entra.client_secret" : "entra");
      const description = typeof body.error_description === "string" ? body.error_description.split(credentials.client_secret).join("[redacted]").slice(0, 300) : undefined;
      helpers.logger.warn(
        { provider: providerId, status, entra_error: error, entra_codes: codes, entra_description: description, field: transient ? undefined : field },
        transient ? "Azure OpenAI: Microsoft Entra ID token request failed" : `Azure OpenAI: Microsoft Entra ID refused the token request; check ${field}`,
      );
    },
  };
}

/** One configured credential's tokens (the machinery is the provider kit's `CachedToken`). */
export class EntraTokens {
  private readonly cached: CachedToken;

  constructor(credentials: EntraCredentials, providerId: string) {
    this.cached = new CachedToken(entraIssuer(credentials, providerId));
  }

  /** A token valid now. Throws a GatewayError (502, retryable: another endpoint may serve) when none can be had. */
  token(context: TokenContext): Promise<string> {
    return this.cached.token(context);
  }

  /** Azure answered 401 to this token (revoked, or the clocks disagree): the next request gets a new one. */
  invalidate(value: string): void {
    this.cached.invalidate(value);
  }
}
