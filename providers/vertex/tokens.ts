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
import type { FetchFunction, GatewayError, ModuleHelpers } from "../../core/sdk/index.ts";
import { isGatewayError } from "../../core/sdk/provider.ts";

/** The scope Vertex AI calls need. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** What the JWT bearer grant is called on the wire. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** Google accepts assertions of at most an hour. */
const ASSERTION_SECONDS = 3600;

/** A token request that hangs must not hold every request of the provider: it fails after this long. */
const TOKEN_TIMEOUT_MS = 30_000;
/** After Google refused the key, requests fail at once for this long instead of asking again each time. */
const REFUSAL_PAUSE_MS = 10_000;
/** A background renewal that failed is tried again after this long (the current token is still good meanwhile). */
const RENEWAL_PAUSE_MS = 10_000;

/** What a token request needs from the call that triggered it. */
export interface TokenContext {
  fetch: FetchFunction;
  helpers: ModuleHelpers;
  /** The request's own signal: it stops waiting, the shared token request goes on for the others. */
  signal?: AbortSignal | null | undefined;
}

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

interface Token {
  value: string;
  /** From then on a request starts a renewal in the background. */
  renewAt: number;
  /** From then on the token is not used any more (a little before Google's expiry: clocks and transit). */
  expiresAt: number;
}

/** Failures that are the configuration's (Google refused the key): asking again at once cannot help. */
const refusals = new WeakSet<GatewayError>();

/** Tokens from a grant, cached and renewed (see the file comment). */
export class GoogleTokens implements TokenSource {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  private refusal: { error: GatewayError; until: number } | undefined;
  private renewalPausedUntil = 0;

  constructor(
    private readonly grant: TokenGrant,
    private readonly providerId: string,
  ) {}

  async token(context: TokenContext): Promise<string> {
    const now = context.helpers.now();
    const current = this.current;
    if (current !== undefined && now < current.renewAt) return current.value;
    if (current !== undefined && now < current.expiresAt) {
      if (this.pending === undefined && now >= this.renewalPausedUntil) {
        this.request(context).catch(() => {
          this.renewalPausedUntil = context.helpers.now() + RENEWAL_PAUSE_MS;
        });
      }
      return current.value;
    }
    if (this.refusal !== undefined && now < this.refusal.until) throw this.refusal.error;
    return (await this.fresh(context)).value;
  }

  invalidate(value: string): boolean {
    if (this.current?.value === value) this.current = undefined;
    return true;
  }

  /**
   * Waits for the token request in flight, or starts one. A request started by another caller may fail for that
   * caller's own reasons (its abort, its transport): then this caller asks again, with its own fetch.
   */
  private async fresh(context: TokenContext): Promise<Token> {
    for (let attempt = 0; ; attempt++) {
      const own = this.pending === undefined;
      const pending = this.pending ?? this.request(context);
      try {
        return await untilAborted(pending, context.signal);
      } catch (error) {
        if (own || attempt > 0 || context.signal?.aborted || isTokenFailure(error)) throw error;
      }
    }
  }

  /** One token request, shared by whoever asks while it runs. */
  private request(context: TokenContext): Promise<Token> {
    const pending = this.ask(context).then(
      (token) => {
        this.current = token;
        this.refusal = undefined;
        return token;
      },
      (error: unknown) => {
        if (isGatewayError(error) && refusals.has(error)) this.refusal = { error, until: context.helpers.now() + REFUSAL_PAUSE_MS };
        throw error;
      },
    );
    const settled = pending.finally(() => {
      if (this.pending === settled) this.pending = undefined;
    });
    this.pending = settled;
    return settled;
  }

  private async ask(context: TokenContext): Promise<Token> {
    const { helpers } = context;
    const started = helpers.now();
    let response: Response;
    let text: string;
    try {
      response = await context.fetch(this.grant.url, { ...(await this.grant.init(started)), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
      text = await response.text();
    } catch (thrown) {
      // A GatewayError here is the caller's own (a strict-mode refusal); anything else: Google could not be reached.
      if (isGatewayError(thrown)) throw thrown;
      throw this.failure(helpers, "Upstream provider could not authenticate: Google's token endpoint could not be reached", { provider_code: "google_token_unreachable" }, thrown);
    }
    const body = parseObject(text);
    if (!response.ok) throw this.refused(helpers, response.status, body);
    const value = body.access_token;
    const lifetime = Number(body.expires_in);
    if (typeof value !== "string" || value === "" || !Number.isFinite(lifetime) || lifetime <= 0) {
      throw this.failure(helpers, "Upstream provider could not authenticate: Google's token endpoint answered without a token", { provider_code: "google_token_invalid_response" });
    }
    return {
      value,
      renewAt: started + (lifetime - Math.min(300, lifetime / 2)) * 1000,
      expiresAt: started + (lifetime - Math.min(60, lifetime / 10)) * 1000,
    };
  }

  /** Google's non-2xx (`{error, error_description}`): logged with the field to fix; the client sees no detail. */
  private refused(helpers: ModuleHelpers, status: number, body: Record<string, unknown>): GatewayError {
    const error = typeof body.error === "string" ? body.error : `http_${status}`;
    // 429 and 5xx are Google's own trouble: worth asking again; any other 4xx is the key (revoked, wrong, clock).
    const transient = status === 429 || status >= 500;
    const description = typeof body.error_description === "string" ? body.error_description.slice(0, 300) : undefined;
    helpers.logger.warn(
      { provider: this.providerId, status, google_error: error, google_description: description, field: transient ? undefined : "credentials" },
      transient ? "Vertex AI: Google's token endpoint failed" : "Vertex AI: Google refused the token request; check credentials",
    );
    const message = transient
      ? "Upstream provider could not authenticate: Google's token endpoint is unavailable"
      : "Upstream provider could not authenticate: Google refused the gateway's credentials";
    const failure = this.failure(helpers, message, { provider_code: `google_token_${error}`, provider_status: status });
    if (!transient) refusals.add(failure);
    return failure;
  }

  private failure(helpers: ModuleHelpers, message: string, metadata: Record<string, unknown>, cause?: unknown): GatewayError {
    return helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata, ...(cause === undefined ? {} : { cause }) });
  }
}

/** A failure of the token request itself (as opposed to one of the caller's own, which another caller may not share). */
function isTokenFailure(error: unknown): boolean {
  return isGatewayError(error) && String(error.metadata?.provider_code ?? "").startsWith("google_token_");
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The promise, or the signal's reason as soon as it aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
