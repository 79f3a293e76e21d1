/**
 * A fake Microsoft Entra ID token endpoint (`POST /{tenant}/oauth2/v2.0/token`), checking what Entra checks of a
 * client-credentials request: the form encoding, `grant_type`, the tenant, the client id, the secret and the scope
 * (Azure OpenAI's audience). It answers Entra's shapes: `{token_type, expires_in, ext_expires_in, access_token}`, or
 * `{error, error_description, error_codes}` with the AADSTS numbers Entra uses. Tokens it issued are remembered with
 * their audience and expiry on the fake's clock, so the resource side can check a bearer token as Azure does.
 */
export const AZURE_OPENAI_AUDIENCE = "https://cognitiveservices.azure.com";

export interface EntraApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Seconds a token lives (Entra: about an hour). */
  lifetimeSeconds: number;
}

export interface IssuedToken {
  audience: string;
  /** Expiry on the fake's clock (ms). */
  expiresAt: number;
}

export interface EntraReply {
  status: number;
  body: Record<string, unknown>;
}

const refusal = (status: number, error: string, code: number, description: string): EntraReply => ({
  status,
  body: { error, error_description: `AADSTS${code}: ${description}`, error_codes: [code], timestamp: "2026-01-01 00:00:00Z", trace_id: "00000000-0000-0000-0000-000000000000", correlation_id: "00000000-0000-0000-0000-000000000001" },
});

export class FakeEntra {
  readonly issued = new Map<string, IssuedToken>();
  private serial = 0;

  constructor(
    private readonly app: EntraApp,
    private readonly now: () => number,
  ) {}

  /** Answers a token request for `tenant` with the raw form body and its content type. */
  token(tenant: string, contentType: string | undefined, form: string): EntraReply {
    if (!contentType?.startsWith("application/x-www-form-urlencoded")) {
      return refusal(400, "invalid_request", 900144, "The request body must contain the following parameter: 'grant_type'.");
    }
    const params = new URLSearchParams(form);
    if (tenant !== this.app.tenantId) return refusal(400, "invalid_request", 90002, `Tenant '${tenant}' not found.`);
    if (params.get("grant_type") !== "client_credentials") return refusal(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.");
    if (params.get("client_id") !== this.app.clientId) {
      return refusal(400, "unauthorized_client", 700016, `Application with identifier '${params.get("client_id")}' was not found in the directory.`);
    }
    if (params.get("client_secret") !== this.app.clientSecret) {
      return refusal(401, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value.");
    }
    const scope = params.get("scope") ?? "";
    if (scope !== `${AZURE_OPENAI_AUDIENCE}/.default`) return refusal(400, "invalid_scope", 70011, `The provided value for the input parameter 'scope' is not valid: ${scope}`);
    const token = `eyJ0eXAiOiJKV1QifQ.fake-entra-${++this.serial}-${crypto.randomUUID()}`;
    this.issued.set(token, { audience: AZURE_OPENAI_AUDIENCE, expiresAt: this.now() + this.app.lifetimeSeconds * 1000 });
    const lifetime = this.app.lifetimeSeconds;
    return { status: 200, body: { token_type: "Bearer", expires_in: lifetime, ext_expires_in: lifetime, access_token: token } };
  }

  /** Whether a bearer token is one this endpoint issued for Azure OpenAI and has not expired. */
  accepts(token: string): boolean {
    const issued = this.issued.get(token);
    return issued !== undefined && issued.audience === AZURE_OPENAI_AUDIENCE && this.now() < issued.expiresAt;
  }
}
