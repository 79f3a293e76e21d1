/**
 * core/provider-kit/cached-token.ts: the cached bearer token every OAuth 2 issuer shares, driven by a scripted token
 * endpoint (a fetch function the test answers) and a clock moved by hand: one request for concurrent callers, renewal
 * in the background while the current token serves, a pause after a refusal (and none after a transient failure), and
 * a caller that gives up without cancelling the request the others wait on.
 */
import { describe, expect, test } from "bun:test";
import { isGatewayError, type GatewayError } from "../../../core/errors.ts";
import { CachedToken, REFUSAL_PAUSE_MS, RENEWAL_PAUSE_MS, type TokenIssuer, type TokenRefusal } from "../../../core/provider-kit/cached-token.ts";
import type { FetchFunction } from "../../../core/registry/helpers.ts";
import { fakeHelpers } from "../providers/helpers.ts";

const TOKEN_URL = "http://127.0.0.1:9/token";

/** A token endpoint whose answers the test releases one by one. */
function endpoint() {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const pending: Array<(response: Response) => void> = [];
  const fetch: FetchFunction = (input, init) => {
    calls.push({ url: String(input), init });
    return new Promise<Response>((resolve) => pending.push(resolve));
  };
  return {
    calls,
    fetch,
    answer: (status: number, body: unknown) => pending.shift()!(new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })),
    waiting: () => pending.length,
  };
}

const settle = () => Bun.sleep(1);

function rig() {
  let now = 1_000_000;
  const logged: TokenRefusal[] = [];
  const inits: number[] = [];
  const issuer: TokenIssuer = {
    url: TOKEN_URL,
    init: (at) => {
      inits.push(at);
      return Promise.resolve({ method: "POST", body: "grant=test" });
    },
    codePrefix: "test_token_",
    endpointName: "the test issuer",
    refuserName: "The test issuer",
    logRefusal: (_helpers, refusal) => void logged.push(refusal),
  };
  const helpers = fakeHelpers({ now: () => now });
  const ep = endpoint();
  return {
    cached: new CachedToken(issuer),
    ep,
    helpers,
    logged,
    inits,
    advance: (ms: number) => void (now += ms),
    context: (signal?: AbortSignal) => ({ fetch: ep.fetch, helpers, signal }),
  };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isGatewayError(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe("CachedToken", () => {
  test("the issuer's request, dated by the clock, with a timeout signal of its own", async () => {
    const r = rig();
    const token = r.cached.token(r.context());
    await settle();
    expect(r.ep.calls).toHaveLength(1);
    expect(r.ep.calls[0]!.url).toBe(TOKEN_URL);
    expect(r.ep.calls[0]!.init?.body).toBe("grant=test");
    expect(r.ep.calls[0]!.init?.signal).toBeInstanceOf(AbortSignal);
    expect(r.inits).toEqual([1_000_000]);
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await token).toBe("tok-1");
  });

  test("concurrent callers share one request in flight; the token is then served from the cache", async () => {
    const r = rig();
    const all = Promise.all(Array.from({ length: 4 }, () => r.cached.token(r.context())));
    await settle();
    expect(r.ep.calls).toHaveLength(1);
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await all).toEqual(["tok-1", "tok-1", "tok-1", "tok-1"]);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(1);
  });

  test("in the renewal window the current token serves while one background renewal runs; then the new one", async () => {
    const r = rig();
    const first = r.cached.token(r.context());
    await settle();
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    await first;
    // 300 s before expiry is the renewal point: one second before it, no renewal.
    r.advance((3600 - 301) * 1000);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(1);
    r.advance(1000);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { access_token: "tok-2", expires_in: 3600 });
    await settle();
    expect(await r.cached.token(r.context())).toBe("tok-2");
    expect(r.ep.calls).toHaveLength(2);
  });

  test("a failed background renewal keeps the current token and is tried again only after the pause", async () => {
    const r = rig();
    const first = r.cached.token(r.context());
    await settle();
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    await first;
    r.advance((3600 - 300) * 1000);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    r.ep.answer(503, { error: "temporarily_unavailable" });
    await settle();
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(2);
    r.advance(RENEWAL_PAUSE_MS - 1);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(2);
    r.advance(1);
    expect(await r.cached.token(r.context())).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(3);
  });

  test("a token past its use-by point (60 s before expiry) is never served: the caller waits for a new one", async () => {
    const r = rig();
    const first = r.cached.token(r.context());
    await settle();
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    await first;
    r.advance((3600 - 60) * 1000);
    const second = r.cached.token(r.context());
    await settle();
    expect(r.ep.waiting()).toBe(1);
    r.ep.answer(200, { access_token: "tok-2", expires_in: 3600 });
    expect(await second).toBe("tok-2");
  });

  test("a refusal: a retryable 502 with the issuer's code, logged once, then the same error at once until the pause ends", async () => {
    const r = rig();
    const first = failure(r.cached.token(r.context()));
    await settle();
    r.ep.answer(401, { error: "invalid_client", error_description: "bad secret" });
    const error = await first;
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("Upstream provider could not authenticate: The test issuer refused the gateway's credentials");
    expect(error.metadata).toEqual({ provider_code: "test_token_invalid_client", provider_status: 401 });
    expect(r.logged).toEqual([{ status: 401, error: "invalid_client", body: { error: "invalid_client", error_description: "bad secret" }, transient: false }]);
    r.advance(REFUSAL_PAUSE_MS - 1);
    expect(await failure(r.cached.token(r.context()))).toBe(error);
    expect(r.ep.calls).toHaveLength(1);
    r.advance(1);
    const again = r.cached.token(r.context());
    await settle();
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await again).toBe("tok-1");
  });

  test("a transient failure (429, 5xx) is not paused: the next caller asks again at once", async () => {
    const r = rig();
    const first = failure(r.cached.token(r.context()));
    await settle();
    r.ep.answer(503, "not json");
    const error = await first;
    expect(error.message).toBe("Upstream provider could not authenticate: the test issuer is unavailable");
    expect(error.metadata).toEqual({ provider_code: "test_token_http_503", provider_status: 503 });
    expect(r.logged[0]!.transient).toBe(true);
    const second = r.cached.token(r.context());
    await settle();
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await second).toBe("tok-1");
  });

  test("an answer without a usable token, or no answer at all: a retryable 502 naming the endpoint", async () => {
    const r = rig();
    const first = failure(r.cached.token(r.context()));
    await settle();
    r.ep.answer(200, { access_token: "tok-1", expires_in: 0 });
    expect((await first).metadata).toEqual({ provider_code: "test_token_invalid_response" });
    const thrown = await failure(r.cached.token({ fetch: () => Promise.reject(new TypeError("connection refused")), helpers: r.helpers }));
    expect(thrown.message).toBe("Upstream provider could not authenticate: the test issuer could not be reached");
    expect(thrown.metadata).toEqual({ provider_code: "test_token_unreachable" });
  });

  test("a caller that aborts stops waiting; the shared request goes on and the others get its token", async () => {
    const r = rig();
    const controller = new AbortController();
    const leaving = r.cached.token(r.context(controller.signal));
    const staying = r.cached.token(r.context());
    await settle();
    expect(r.ep.calls).toHaveLength(1);
    controller.abort(new Error("client went away"));
    await expect(leaving).rejects.toThrow("client went away");
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await staying).toBe("tok-1");
    expect(r.ep.calls).toHaveLength(1);
  });

  test("a request that failed for its starter's own reasons does not fail the callers waiting on it: they ask again", async () => {
    const r = rig();
    const refusal = r.helpers.error("unprocessable", "strict: a field was dropped", { status: 422 });
    const starter = r.cached.token({ fetch: (() => Promise.reject(refusal)) as FetchFunction, helpers: r.helpers });
    const waiter = r.cached.token(r.context());
    expect(await failure(starter)).toBe(refusal);
    await settle();
    expect(r.ep.calls).toHaveLength(1);
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    expect(await waiter).toBe("tok-1");
  });

  test("invalidate drops that token only: the next caller gets a new one", async () => {
    const r = rig();
    const first = r.cached.token(r.context());
    await settle();
    r.ep.answer(200, { access_token: "tok-1", expires_in: 3600 });
    await first;
    r.cached.invalidate("some-other-token");
    expect(await r.cached.token(r.context())).toBe("tok-1");
    r.cached.invalidate("tok-1");
    const second = r.cached.token(r.context());
    await settle();
    r.ep.answer(200, { access_token: "tok-2", expires_in: 3600 });
    expect(await second).toBe("tok-2");
  });
});
