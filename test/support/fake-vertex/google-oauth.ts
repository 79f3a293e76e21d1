/**
 * A fake Google OAuth 2 token endpoint (`POST /token`), checking what Google checks of a JWT bearer grant (RFC 7523)
 * from a service account: the form encoding, `grant_type`, an RS256 assertion whose signature verifies with the
 * account's public key (an independent check: `jose`'s verifier against the key the test generated), `iss` the
 * account's email, `aud` the token URL, the `cloud-platform` scope, and a lifetime of at most an hour that has begun
 * and not ended on the fake's clock. It answers Google's shapes: `{access_token, expires_in, token_type}`, or
 * `{error, error_description}` with the sentences Google uses. Tokens it issued are remembered with their scope and
 * expiry, so the Vertex side can check a bearer token as Google does.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { decodeJwt, jwtVerify } from "jose";

export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/** A service account the fake knows: its key file (as the console downloads it) and its public key. */
export interface FakeServiceAccount {
  keyFile: Record<string, string>;
  publicKey: KeyObject;
}

/** A fresh RSA key pair as a service-account key file for `project`, with `tokenUri` as its `token_uri`. */
export function makeServiceAccount(project: string, tokenUri: string, name = "gateway"): FakeServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const email = `${name}@${project}.iam.gserviceaccount.com`;
  return {
    publicKey,
    keyFile: {
      type: "service_account",
      project_id: project,
      private_key_id: `${name}-key-${crypto.randomUUID().replaceAll("-", "")}`,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: email,
      client_id: "102938475610293847561",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: tokenUri,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: "googleapis.com",
    },
  };
}

export interface IssuedToken {
  email: string;
  scope: string;
  /** Expiry on the fake's clock (ms). */
  expiresAt: number;
}

export interface TokenReply {
  status: number;
  body: Record<string, unknown>;
}

const refusal = (status: number, error: string, description: string): TokenReply => ({ status, body: { error, error_description: description } });

export class FakeGoogleOAuth {
  readonly issued = new Map<string, IssuedToken>();
  /** Assertions received (decoded claims), accepted or not. */
  readonly assertions: Array<Record<string, unknown>> = [];
  private serial = 0;

  constructor(
    /** Service accounts it knows (a test adds one once it knows the token URL its key file names). */
    readonly accounts: FakeServiceAccount[],
    /** The `aud` assertions must carry: the URL this endpoint is reached at. */
    readonly audience: string,
    private readonly now: () => number,
    private readonly lifetimeSeconds = 3599,
  ) {}

  /** Answers a token request with its content type and raw form body. */
  async token(contentType: string | undefined, form: string): Promise<TokenReply> {
    if (!contentType?.startsWith("application/x-www-form-urlencoded")) return refusal(400, "invalid_request", "Invalid Content-Type.");
    const params = new URLSearchParams(form);
    if (params.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return refusal(400, "unsupported_grant_type", "Invalid grant_type: " + (params.get("grant_type") ?? ""));
    const assertion = params.get("assertion") ?? "";
    let claims: Record<string, unknown>;
    try {
      claims = decodeJwt(assertion);
    } catch {
      return refusal(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.");
    }
    this.assertions.push(claims);
    const account = this.accounts.find((a) => a.keyFile.client_email === claims.iss);
    if (account === undefined) return refusal(400, "invalid_grant", "Invalid grant: account not found");
    try {
      await jwtVerify(assertion, account.publicKey, { algorithms: ["RS256"], audience: this.audience, issuer: account.keyFile.client_email!, currentDate: new Date(this.now()), clockTolerance: 0 });
    } catch {
      return refusal(400, "invalid_grant", "Invalid JWT Signature.");
    }
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    const nowSeconds = this.now() / 1000;
    if (!Number.isFinite(iat) || !Number.isFinite(exp) || exp - iat > 3600 || iat > nowSeconds + 60) {
      return refusal(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.");
    }
    const scope = typeof claims.scope === "string" ? claims.scope : "";
    if (!scope.split(" ").includes(CLOUD_PLATFORM)) return refusal(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
    const token = `ya29.fake-${++this.serial}-${crypto.randomUUID()}`;
    this.issued.set(token, { email: account.keyFile.client_email!, scope, expiresAt: this.now() + this.lifetimeSeconds * 1000 });
    return { status: 200, body: { access_token: token, expires_in: this.lifetimeSeconds, token_type: "Bearer" } };
  }

  /**
   * The metadata server's answer (`GET …/service-accounts/default/token`): a token for the VM's attached account when
   * the request carries `Metadata-Flavor: Google`, else the server's 403.
   */
  metadataToken(flavor: string | undefined, email = "vm-default@developer.gserviceaccount.com"): TokenReply {
    if (flavor !== "Google") return { status: 403, body: { error: "Missing Metadata-Flavor:Google header." } };
    const token = `ya29.fake-vm-${++this.serial}-${crypto.randomUUID()}`;
    this.issued.set(token, { email, scope: CLOUD_PLATFORM, expiresAt: this.now() + this.lifetimeSeconds * 1000 });
    return { status: 200, body: { access_token: token, expires_in: this.lifetimeSeconds, token_type: "Bearer" } };
  }

  /** Whether a bearer token is one this endpoint issued for the cloud-platform scope and has not expired. */
  accepts(token: string): boolean {
    const issued = this.issued.get(token);
    return issued !== undefined && issued.scope.split(" ").includes(CLOUD_PLATFORM) && this.now() < issued.expiresAt;
  }

  /** Revokes a token (Vertex then answers 401 to it). */
  revoke(token: string): void {
    this.issued.delete(token);
  }
}
