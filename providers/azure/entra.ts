/**
 * Microsoft Entra ID access tokens for Azure OpenAI (the OAuth 2 client-credentials grant of an app registration,
 * scope `https://cognitiveservices.azure.com/.default`). One `EntraTokens` per configured credential: the token is
 * cached, renewed in the background a few minutes before it expires (requests keep using the current one meanwhile),
 * fetched in the foreground only when none is valid, and one token request serves every request waiting for it. The
 * client secret never leaves the form body: not in an error, not in a log line.
 */
import type { FetchFunction, GatewayError, ModuleHelpers } from "../../core/sdk/index.ts";
import { isGatewayError } from "../../core/sdk/provider.ts";
import type { EntraCredentials } from "./options.ts";

/** The audience of Azure OpenAI (Azure AI services) tokens. */
export const COGNITIVE_SERVICES_SCOPE = "https://cognitiveservices.azure.com/.default";

/** Entra's v2.0 token endpoint of a tenant (`entra.token_url` replaces it, e.g. for a sovereign cloud or a test). */
export function defaultTokenUrl(tenantId: string): string {
  return `https://login.microsoftonline.com/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
}

/** A token request that hangs must not hold every request of the provider: it fails after this long. */
const TOKEN_TIMEOUT_MS = 30_000;
/** After Entra refused the credentials, requests fail at once for this long instead of asking again each time. */
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

interface Token {
  value: string;
  /** From then on a request starts a renewal in the background. */
  renewAt: number;
  /** From then on the token is not used any more (a little before Entra's expiry: clocks and transit). */
  expiresAt: number;
}

/** Entra's error body (`error`, `error_description`, `error_codes`: AADSTS numbers). */
interface EntraErrorBody {
  error?: unknown;
  error_description?: unknown;
  error_codes?: unknown;
}

/** AADSTS codes that point at one configuration field. */
const FIELD_OF_CODE: Record<number, string> = {
  7000215: "entra.client_secret", // invalid client secret
  7000222: "entra.client_secret", // expired client secret
  700016: "entra.client_id", // application not found in the directory
  90002: "entra.tenant_id", // tenant not found
  900023: "entra.tenant_id", // tenant identifier is neither a GUID nor a domain
};

/** Failures that are the configuration's (Entra refused the credentials): asking again at once cannot help. */
const refusals = new WeakSet<GatewayError>();

export class EntraTokens {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  private refusal: { error: GatewayError; until: number } | undefined;
  private renewalPausedUntil = 0;
  private readonly url: string;
  private readonly form: string;

  constructor(
    private readonly credentials: EntraCredentials,
    private readonly providerId: string,
  ) {
    this.url = credentials.token_url ?? defaultTokenUrl(credentials.tenant_id);
    this.form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
      scope: COGNITIVE_SERVICES_SCOPE,
    }).toString();
  }

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

  /** Azure answered 401 to this token (revoked, or the clocks disagree): the next request gets a new one. */
  invalidate(value: string): void {
    if (this.current?.value === value) this.current = undefined;
  }

  /**
   * Waits for the token request in flight, or starts one. A request started by another caller may fail for that
   * caller's own reasons (its strict-mode refusal, its transport): then this caller asks again, with its own fetch.
   */
  private async fresh(context: TokenContext): Promise<Token> {
    for (let attempt = 0; ; attempt++) {
      const own = this.pending === undefined;
      const pending = this.pending ?? this.request(context);
      try {
        return await untilAborted(pending, context.signal);
      } catch (error) {
        if (own || attempt > 0 || context.signal?.aborted || isEntraFailure(error)) throw error;
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
      response = await context.fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: this.form,
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (thrown) {
      // A GatewayError here is the caller's own (a strict-mode refusal); anything else: Entra could not be reached.
      if (isGatewayError(thrown)) throw thrown;
      throw this.failure(helpers, "Upstream provider could not authenticate: Microsoft Entra ID could not be reached", { provider_code: "entra_unreachable" }, thrown);
    }
    const body = parseObject(text);
    if (!response.ok) throw this.refused(helpers, response.status, body);
    const value = body.access_token;
    const lifetime = Number(body.expires_in);
    if (typeof value !== "string" || value === "" || !Number.isFinite(lifetime) || lifetime <= 0) {
      throw this.failure(helpers, "Upstream provider could not authenticate: Microsoft Entra ID answered without a token", { provider_code: "entra_invalid_response" });
    }
    return {
      value,
      renewAt: started + (lifetime - Math.min(300, lifetime / 2)) * 1000,
      expiresAt: started + (lifetime - Math.min(60, lifetime / 10)) * 1000,
    };
  }

  /** Entra's non-2xx: its error code and AADSTS numbers name the field to fix (in the log); the client sees no detail. */
  private refused(helpers: ModuleHelpers, status: number, body: EntraErrorBody): GatewayError {
    const error = typeof body.error === "string" ? body.error : `http_${status}`;
    const codes = Array.isArray(body.error_codes) ? body.error_codes.filter((c): c is number => typeof c === "number") : [];
    // 429 and 5xx are Entra's own trouble: worth asking again; any other 4xx is the configuration.
    const transient = status === 429 || status >= 500;
    const field = codes.map((code) => FIELD_OF_CODE[code]).find((f) => f !== undefined) ?? (error === "unauthorized_client" ? "entra.client_id" : error === "invalid_client" ? "entra.client_secret" : "entra");
    const description = typeof body.error_description === "string" ? body.error_description.split(this.credentials.client_secret).join("[redacted]").slice(0, 300) : undefined;
    helpers.logger.warn(
      { provider: this.providerId, status, entra_error: error, entra_codes: codes, entra_description: description, field: transient ? undefined : field },
      transient ? "Azure OpenAI: Microsoft Entra ID token request failed" : `Azure OpenAI: Microsoft Entra ID refused the token request; check ${field}`,
    );
    const message = transient
      ? "Upstream provider could not authenticate: Microsoft Entra ID is unavailable"
      : "Upstream provider could not authenticate: Microsoft Entra ID refused the gateway's credentials";
    const failure = this.failure(helpers, message, { provider_code: `entra_${error}`, provider_status: status });
    if (!transient) refusals.add(failure);
    return failure;
  }

  private failure(helpers: ModuleHelpers, message: string, metadata: Record<string, unknown>, cause?: unknown): GatewayError {
    return helpers.error("provider_unavailable", message, { status: 502, retryable: true, metadata, ...(cause === undefined ? {} : { cause }) });
  }
}

/** A failure of the token request itself (as opposed to one of the caller's own, which another caller may not share). */
function isEntraFailure(error: unknown): boolean {
  return isGatewayError(error) && String(error.metadata?.provider_code ?? "").startsWith("entra_");
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
