/**
 * Google OAuth 2 access tokens for Vertex AI. Three sources:
 *
 * - a service-account key: the JWT bearer grant (RFC 7523) to Google's token endpoint — an RS256 assertion signed
 *   with the key by `jose` (`iss` the account's email, `scope` cloud-platform, `aud` the token URL, one hour) —
 *   answered with a token of about an hour. The token is cached, renewed in the background a few minutes before it
 *   expires (requests keep using the current one meanwhile), fetched in the foreground only when none is valid, and
 *   one token request serves every request waiting for it. A 401 from Vertex drops it (./transport.ts asks again once).
 * - the metadata server of a Google Cloud VM, Cloud Run service or GKE pod (`GET …/service-accounts/default/token`
 *   with `Metadata-Flavor: Google`): the attached service account's token, cached and renewed the same way.
 * - a fixed access token from the config (`gcloud auth print-access-token`, tests): used as it is.
 *
 * The private key never leaves the signature: not in an error, not in a log line.
 */
import type { KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { CachedToken, type TokenContext, type TokenIssuer } from "../../core/sdk/provider.ts";

/** The scope Vertex AI calls need. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** What the JWT bearer grant is called on the wire. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** Google accepts assertions of at most an hour. */
const ASSERTION_SECONDS = 3600;

/** Where a provider's bearer tokens come from. */
export interface TokenSource {
  /** A token valid now. Throws a GatewayError (502, retryable: another endpoint may serve) when none can be had. */
  token(context: TokenContext): Promise<string>;
  /** Vertex answered 401 to this token: whether a new one can be had (then the next `token` call gets it). */
  invalidate(value: string): boolean;
}

/** A fixed token from the config: nothing to renew. */
export class FixedToken implements TokenSource {
  constructor(private readonly value: string) {}
  token(): Promise<string> {
    return Promise.resolve(this.value);
  }
  invalidate(): boolean {
    return false;
  }
}

/** The signing identity of a service account. */
export interface SigningKey {
  clientEmail: string;
  keyId: string | undefined;
  key: KeyObject;
  tokenUrl: string;
}

/** How one token request is made: a service-account key's JWT bearer grant, or the metadata server's GET. */
export interface TokenGrant {
  url: string;
  /** The request, made when it is sent (`now` dates an assertion). */
  init(now: number): Promise<RequestInit>;
}

/** The metadata server's token URL (a VM's, Cloud Run's, GKE's; `token_url` replaces it in tests). */
export const METADATA_TOKEN_URL = "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token";

/** The metadata server's grant: a GET that must carry `Metadata-Flavor: Google`. */
export function metadataGrant(url = METADATA_TOKEN_URL): TokenGrant {
  return { url, init: () => Promise.resolve({ method: "GET", headers: { "metadata-flavor": "Google", accept: "application/json" } }) };
}

/** A service-account key's JWT bearer grant (RFC 7523): an RS256 assertion dated on the gateway's clock. */
export function serviceAccountGrant(signing: SigningKey): TokenGrant {
  return {
    url: signing.tokenUrl,
    async init(now) {
      const iat = Math.floor(now / 1000);
      const header = signing.keyId ? { alg: "RS256", typ: "JWT", kid: signing.keyId } : { alg: "RS256", typ: "JWT" };
      const assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
        .setProtectedHeader(header)
        .setIssuer(signing.clientEmail)
        .setAudience(signing.tokenUrl)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ASSERTION_SECONDS)
        .sign(signing.key);
      return {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
      };
    },
  };
}

/** Google's token issuer for a grant: its refusals logged for the operator (the field to fix is the credentials). */
function googleIssuer(grant: TokenGrant, providerId: string): TokenIssuer {
  return {
    url: grant.url,
    init: (now) => grant.init(now),
    codePrefix: "google_token_",
    endpointName: "Google's token endpoint",
    refuserName: "Google",
    // A 4xx other than 429 is the key's (revoked, wrong, clock).
    logRefusal(helpers, { status, error, body, transient }) {
      const description = typeof body.error_description === "string" ? body.error_description.slice(0, 300) : undefined;
      helpers.logger.warn(
        { provider: providerId, status, google_error: error, google_description: description, field: transient ? undefined : "credentials" },
        transient ? "Vertex AI: Google's token endpoint failed" : "Vertex AI: Google refused the token request; check credentials",
      );
    },
  };
}

/** Tokens from a grant, cached and renewed by the provider kit's `CachedToken` (see the file comment). */
export class GoogleTokens implements TokenSource {
  private readonly cached: CachedToken;

  constructor(grant: TokenGrant, providerId: string) {
    this.cached = new CachedToken(googleIssuer(grant, providerId));
  }

  token(context: TokenContext): Promise<string> {
    return this.cached.token(context);
  }

  invalidate(value: string): boolean {
    this.cached.invalidate(value);
    return true;
  }
}
