/**
 * A cached OAuth 2 bearer token (RFC 6749 token endpoint answers: `access_token`, `expires_in`; errors as `error`,
 * `error_description`), as Azure's Entra ID and Google's token endpoints issue them. The token is cached, renewed in
 * the background a few minutes before it expires (requests keep using the current one meanwhile), fetched in the
 * foreground only when none is valid, and one token request serves every request waiting for it. After the issuer
 * refused the credentials, requests fail at once for a while instead of asking again each time.
 *
 * What differs between issuers is a `TokenIssuer`: how one token request is made, what its failures are called, and
 * how a refusal is logged (the field to fix; secrets redacted). The secret stays in the request the issuer builds.
 */
import { isGatewayError, type GatewayError } from "../errors.ts";
import type { FetchFunction, ModuleHelpers } from "../registry/helpers.ts";
import { untilAborted } from "../util/until-aborted.ts";

/** A token request that hangs must not hold every request of the provider: it fails after this long. */
export const TOKEN_TIMEOUT_MS = 30_000;
/** After the issuer refused the credentials, requests fail at once for this long instead of asking again each time. */
export const REFUSAL_PAUSE_MS = 10_000;
/** A background renewal that failed is tried again after this long (the current token is still good meanwhile). */
export const RENEWAL_PAUSE_MS = 10_000;

/** What a token request needs from the call that triggered it. */
export interface TokenContext {
  fetch: FetchFunction;
  helpers: ModuleHelpers;
  /** The request's own signal: it stops waiting, the shared token request goes on for the others. */
  signal?: AbortSignal | null | undefined;
}

/** An issuer's non-2xx answer to a token request. */
export interface TokenRefusal {
  status: number;
  /** The OAuth `error` code, or `http_<status>` when the body has none. */
  error: string;
  /** The parsed body (`{}` when it was not a JSON object). */
  body: Record<string, unknown>;
  /** 429 or 5xx: the issuer's own trouble, worth asking again; any other 4xx is the configuration's. */
  transient: boolean;
}

/** What differs between the issuers of cached tokens. */
export interface TokenIssuer {
  /** Where one token request goes. */
  url: string;
  /** The token request without its signal, made when it is sent (`now` dates an assertion). */
  init(now: number): Promise<RequestInit>;
  /** Starts the `provider_code` of every failure of the token request itself (`entra_`, `google_token_`). */
  codePrefix: string;
  /** The token endpoint as the client's messages name it ("Microsoft Entra ID", "Google's token endpoint"). */
  endpointName: string;
  /** Who refuses credentials, as the client's messages name it ("Microsoft Entra ID", "Google"). */
  refuserName: string;
  /** Logs a non-2xx answer for the operator (the field to fix); the client's error carries no detail. */
  logRefusal(helpers: ModuleHelpers, refusal: TokenRefusal): void;
}

interface Token {
  value: string;
  /** From then on a request starts a renewal in the background. */
  renewAt: number;
  /** From then on the token is not used any more (a little before the issuer's expiry: clocks and transit). */
  expiresAt: number;
}

/** Failures that are the configuration's (the issuer refused the credentials): asking again at once cannot help. */
const refusals = new WeakSet<GatewayError>();

/** One issuer's token, cached and renewed (see the file comment). */
export class CachedToken {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  private refusal: { error: GatewayError; until: number } | undefined;
  private renewalPausedUntil = 0;

  constructor(private readonly issuer: TokenIssuer) {}

  /** A token valid now. Throws a GatewayError (502, retryable: another endpoint may serve) when none can be had. */
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

  /** The upstream answered 401 to this token (revoked, or the clocks disagree): the next request gets a new one. */
  invalidate(value: string): void {
    if (this.current?.value === value) this.current = undefined;
  }

  /**
   * Waits for the token request in flight, or starts one. A request started by another caller may fail for that
   * caller's own reasons (its abort, its strict-mode refusal, its transport): then this caller asks again, with its
   * own fetch.
   */
  private async fresh(context: TokenContext): Promise<Token> {
    for (let attempt = 0; ; attempt++) {
      const own = this.pending === undefined;
      const pending = this.pending ?? this.request(context);
      try {
        return await untilAborted(pending, context.signal);
      } catch (error) {
        if (own || attempt > 0 || context.signal?.aborted || this.isTokenFailure(error)) throw error;
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
    const { issuer } = this;
    const started = helpers.now();
    let response: Response;
    let text: string;
    try {
      response = await context.fetch(issuer.url, { ...(await issuer.init(started)), signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
      text = await response.text();
    } catch (thrown) {
      // A GatewayError here is the caller's own (a strict-mode refusal); anything else: the issuer could not be reached.
      if (isGatewayError(thrown)) throw thrown;
      throw this.failure(helpers, `${issuer.endpointName} could not be reached`, { provider_code: `${issuer.codePrefix}unreachable` }, thrown);
    }
    const body = parseObject(text);
    if (!response.ok) throw this.refused(helpers, response.status, body);
    const value = body.access_token;
    const lifetime = Number(body.expires_in);
    if (typeof value !== "string" || value === "" || !Number.isFinite(lifetime) || lifetime <= 0) {
      throw this.failure(helpers, `${issuer.endpointName} answered without a token`, { provider_code: `${issuer.codePrefix}invalid_response` });
    }
    return {
      value,
      renewAt: started + (lifetime - Math.min(300, lifetime / 2)) * 1000,
      expiresAt: started + (lifetime - Math.min(60, lifetime / 10)) * 1000,
    };
  }

  /** The issuer's non-2xx: logged by the issuer with the field to fix; the client sees no detail. */
  private refused(helpers: ModuleHelpers, status: number, body: Record<string, unknown>): GatewayError {
    const error = typeof body.error === "string" ? body.error : `http_${status}`;
    const transient = status === 429 || status >= 500;
    this.issuer.logRefusal(helpers, { status, error, body, transient });
    const message = transient ? `${this.issuer.endpointName} is unavailable` : `${this.issuer.refuserName} refused the gateway's credentials`;
    const failure = this.failure(helpers, message, { provider_code: `${this.issuer.codePrefix}${error}`, provider_status: status });
    if (!transient) refusals.add(failure);
    return failure;
  }

  private failure(helpers: ModuleHelpers, reason: string, metadata: Record<string, unknown>, cause?: unknown): GatewayError {
    const message = `Upstream provider could not authenticate: ${reason}`;
    return helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata, ...(cause === undefined ? {} : { cause }) });
  }

  /** A failure of the token request itself (as opposed to one of the caller's own, which another caller may not share). */
  private isTokenFailure(error: unknown): boolean {
    return isGatewayError(error) && String(error.metadata?.provider_code ?? "").startsWith(this.issuer.codePrefix);
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
