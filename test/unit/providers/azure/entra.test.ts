/**
 * providers/azure/entra.ts: the Entra ID token cache, with a scripted token endpoint (a fetch function) and a clock
 * moved by hand: one request for concurrent callers, renewal in the background before expiry, a new token before use
 * once expired, a caller that gives up without cancelling the others, refusals paused, and the secret in no error.
 */
import { describe, expect, test } from "bun:test";
import { isGatewayError, type GatewayError } from "../../../../core/errors.ts";
import type { FetchFunction } from "../../../../core/registry/helpers.ts";
import { COGNITIVE_SERVICES_SCOPE, defaultTokenUrl, EntraTokens } from "../../../../providers/azure/entra.ts";
import { fakeHelpers } from "../helpers.ts";

const CREDENTIALS = { tenant_id: "contoso", client_id: "app-1", client_secret: "s3cret-value" };

interface Endpoint {
  fetch: FetchFunction;
  calls: Array<{ url: string; form: URLSearchParams }>;
  /** Resolves the oldest waiting token request with this status and body. */
  answer(status: number, body: unknown): void;
  waiting(): number;
}

/** A token endpoint whose answers the test releases one by one. */
function endpoint(): Endpoint {
  const calls: Endpoint["calls"] = [];
  const pending: Array<(response: Response) => void> = [];
  return {
    calls,
    fetch: (input, init) => {
      calls.push({ url: String(input), form: new URLSearchParams(String(init?.body)) });
      return new Promise<Response>((resolve) => pending.push(resolve));
    },
    answer: (status, body) => pending.shift()!(new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })),
    waiting: () => pending.length,
  };
}

const settle = () => Bun.sleep(1);

function rig() {
  let now = 1_000_000;
  const warnings: unknown[] = [];
  const helpers = fakeHelpers({ now: () => now, logger: { warn: (...args: unknown[]) => warnings.push(args) } as never });
  const ep = endpoint();
  const tokens = new EntraTokens(CREDENTIALS, "az");
  return { tokens, ep, helpers, warnings, advance: (seconds: number) => void (now += seconds * 1000), context: (signal?: AbortSignal) => ({ fetch: ep.fetch, helpers, signal }) };
}

describe("EntraTokens", () => {
  test("the client-credentials grant to the tenant's v2.0 endpoint, with Azure OpenAI's scope", async () => {
    const r = rig();
    const token = r.tokens.token(r.context());
    await settle();
    expect(r.ep.calls[0]!.url).toBe(defaultTokenUrl("contoso"));
    expect(r.ep.calls[0]!.url).toBe("https://login.microsoftonline.com/contoso/oauth2/v2.0/token");
    expect(Object.fromEntries(r.ep.calls[0]!.form)).toEqual({ grant_type: "client_credentials", client_id: "app-1", client_secret: "s3cret-value", scope: COGNITIVE_SERVICES_SCOPE });
    r.ep.answer(200, { token_type: "Bearer", expires_in: 3599, access_token: "tok-1" });
    expect(await token).toBe("tok-1");
  });

  test("concurrent callers share one request; the token is then served from the cache", async () => {
    const r = rig();
    const all = Promise.all(Array.from({ length: 5 }, () => r.tokens.token(r.context())));
    await settle();
    expect(r.ep.calls).toHaveLength(1);
    r.ep.answer(200, { expires_in: 3599, access_token: "tok-1" });
    expect(await all).toEqual(Array(5).fill("tok-1"));
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(1);
  });

  test("five minutes before expiry: the current token serves while one renewal runs; after it, the new one", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    await first;
    r.advance(3600 - 299);
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-2" });
    await settle();
    expect(await r.tokens.token(r.context())).toBe("tok-2");
  });

  test("a failed renewal keeps the current token and is not retried on every call", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    await first;
    r.advance(3600 - 200);
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    r.ep.answer(503, { error: "temporarily_unavailable" });
    await settle();
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(2);
    r.advance(11);
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(3);
  });

  test("an expired token is never served: the caller waits for a new one", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    await first;
    r.advance(3600 - 30);
    const next = r.tokens.token(r.context());
    await settle();
    expect(r.ep.waiting()).toBe(1);
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-2" });
    expect(await next).toBe("tok-2");
  });

  test("invalidate: the token Azure refused is not used again", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    await first;
    r.tokens.invalidate("tok-other");
    expect(await r.tokens.token(r.context())).toBe("tok-1");
    r.tokens.invalidate("tok-1");
    const next = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-2" });
    expect(await next).toBe("tok-2");
  });

  test("a caller whose request is aborted stops waiting; the others still get the token", async () => {
    const r = rig();
    const controller = new AbortController();
    const leaving = r.tokens.token(r.context(controller.signal));
    const staying = r.tokens.token(r.context());
    await settle();
    controller.abort(new Error("client went away"));
    expect(await leaving.catch((e: Error) => e.message)).toBe("client went away");
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    expect(await staying).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(1);
  });

  test("a request another caller's own fetch refused (its strict mode) does not fail the callers waiting on it", async () => {
    const r = rig();
    const refusal = r.helpers.error("unprocessable", "strict: a field was dropped", { status: 422 });
    const strictContext = { fetch: (() => Promise.reject(refusal)) as FetchFunction, helpers: r.helpers };
    const strict = r.tokens.token(strictContext);
    const other = r.tokens.token(r.context());
    expect(await strict.catch((e: GatewayError) => e.type)).toBe("unprocessable");
    await settle();
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    expect(await other).toBe("tok-1");
  });

  test("Entra refusing the credentials: a retryable 502 without the secret, the field in the log, no new request for a while", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await settle();
    r.ep.answer(401, { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided: s3cret-value.", error_codes: [7000215] });
    const error = (await first.catch((e: unknown) => e)) as GatewayError;
    expect(isGatewayError(error)).toBe(true);
    expect([error.type, error.status, error.retryable, error.metadata?.provider_code]).toEqual(["provider_unavailable", 502, true, "entra_invalid_client"]);
    expect(JSON.stringify([error.message, error.metadata])).not.toContain("s3cret-value");
    const logged = JSON.stringify(r.warnings);
    expect(logged).toContain("check entra.client_secret");
    expect(logged).not.toContain("s3cret-value");
    // Paused: the same refusal at once, no request.
    expect(await r.tokens.token(r.context()).catch((e: unknown) => e)).toBe(error);
    expect(r.ep.calls).toHaveLength(1);
    r.advance(11);
    const later = r.tokens.token(r.context());
    await settle();
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { expires_in: 3600, access_token: "tok-1" });
    expect(await later).toBe("tok-1");
  });

  test("the AADSTS code names the field: an unknown client id, an unknown tenant", async () => {
    for (const [body, field] of [
      [{ error: "unauthorized_client", error_codes: [700016] }, "entra.client_id"],
      [{ error: "invalid_request", error_codes: [90002] }, "entra.tenant_id"],
    ] as const) {
      const r = rig();
      const token = r.tokens.token(r.context());
      await settle();
      r.ep.answer(400, body);
      await token.catch(() => undefined);
      expect(JSON.stringify(r.warnings)).toContain(`check ${field}`);
    }
  });

  test("an answer without a token, or no answer at all: a retryable 502", async () => {
    const r = rig();
    const empty = r.tokens.token(r.context());
    await settle();
    r.ep.answer(200, { token_type: "Bearer" });
    expect(((await empty.catch((e: unknown) => e)) as GatewayError).metadata?.provider_code).toBe("entra_invalid_response");
    const down = (await r.tokens.token({ fetch: () => Promise.reject(new TypeError("connect ECONNREFUSED")), helpers: r.helpers }).catch((e: unknown) => e)) as GatewayError;
    expect([down.status, down.retryable, down.metadata?.provider_code]).toEqual([502, true, "entra_unreachable"]);
  });
});
