/**
 * providers/vertex/tokens.ts: the service-account token cache, with a scripted token endpoint (a fetch function) and
 * a clock moved by hand: the JWT bearer grant's assertion (verified with the key's public half), one request for
 * concurrent callers, renewal in the background before expiry, a new token before use once expired, a 401's token
 * dropped, refusals paused, and no key material in an error.
 */
import { describe, expect, test } from "bun:test";
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { isGatewayError, type GatewayError } from "../../../../core/errors.ts";
import type { FetchFunction } from "../../../../core/registry/helpers.ts";
import { CLOUD_PLATFORM_SCOPE, FixedToken, GoogleTokens, JWT_BEARER_GRANT, metadataGrant, METADATA_TOKEN_URL, serviceAccountGrant } from "../../../../providers/vertex/tokens.ts";
import { fakeHelpers } from "../helpers.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PEM = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const TOKEN_URL = "https://oauth2.googleapis.com/token";
const EMAIL = "gw@acme.iam.gserviceaccount.com";

interface Endpoint {
  fetch: FetchFunction;
  calls: Array<{ url: string; method: string; form: URLSearchParams; contentType: string; headers: Record<string, string> }>;
  answer(status: number, body: unknown): void;
  waiting(): number;
}

function endpoint(): Endpoint {
  const calls: Endpoint["calls"] = [];
  const pending: Array<(response: Response) => void> = [];
  return {
    calls,
    fetch: (input, init) => {
      const headers = init?.headers as Record<string, string>;
      calls.push({ url: String(input), method: String(init?.method), form: new URLSearchParams(String(init?.body ?? "")), contentType: String(headers["content-type"]), headers });
      return new Promise<Response>((resolve) => pending.push(resolve));
    },
    answer: (status, body) => pending.shift()!(new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })),
    waiting: () => pending.length,
  };
}

/** A few turns of the event loop. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Bun.sleep(2);
};

/** Until a token request is waiting (signing the assertion takes a while on a busy machine), then a few more turns. */
const asked = async (ep: Endpoint) => {
  for (let i = 0; i < 1000 && ep.waiting() === 0; i++) await Bun.sleep(2);
  await settle();
};

function rig() {
  let now = 1_700_000_000_000;
  const warnings: unknown[] = [];
  const helpers = fakeHelpers({ now: () => now, logger: { warn: (...args: unknown[]) => warnings.push(args) } as never });
  const ep = endpoint();
  const tokens = new GoogleTokens(serviceAccountGrant({ clientEmail: EMAIL, keyId: "kid-1", key: createPrivateKey(PEM), tokenUrl: TOKEN_URL }), "gcp");
  return { tokens, ep, helpers, warnings, now: () => now, advance: (seconds: number) => void (now += seconds * 1000), context: (signal?: AbortSignal) => ({ fetch: ep.fetch, helpers, signal }) };
}

describe("GoogleTokens with a service-account key", () => {
  test("the JWT bearer grant: an RS256 assertion for the cloud-platform scope, to the token URL, for an hour, signed by the key", async () => {
    const r = rig();
    const token = r.tokens.token(r.context());
    await asked(r.ep);
    const call = r.ep.calls[0]!;
    expect(call.url).toBe(TOKEN_URL);
    expect(call.contentType).toBe("application/x-www-form-urlencoded");
    expect(call.form.get("grant_type")).toBe(JWT_BEARER_GRANT);
    const assertion = call.form.get("assertion")!;
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: "RS256", typ: "JWT", kid: "kid-1" });
    const { payload } = await jwtVerify(assertion, publicKey, { audience: TOKEN_URL, issuer: EMAIL, currentDate: new Date(r.now()) });
    expect(payload.scope).toBe(CLOUD_PLATFORM_SCOPE);
    expect(payload.iat).toBe(r.now() / 1000);
    expect(payload.exp! - payload.iat!).toBe(3600);
    r.ep.answer(200, { access_token: "ya29.one", expires_in: 3599, token_type: "Bearer" });
    expect(await token).toBe("ya29.one");
  });

  test("concurrent callers share one request; then the cache serves; renewed in the background before expiry, replaced once expired", async () => {
    const r = rig();
    const both = Promise.all([r.tokens.token(r.context()), r.tokens.token(r.context())]);
    await asked(r.ep);
    expect(r.ep.waiting()).toBe(1);
    r.ep.answer(200, { access_token: "ya29.one", expires_in: 3600, token_type: "Bearer" });
    expect(await both).toEqual(["ya29.one", "ya29.one"]);
    r.advance(3000);
    expect(await r.tokens.token(r.context())).toBe("ya29.one");
    expect(r.ep.calls).toHaveLength(1);
    // Within 5 minutes of expiry: the current token, and one renewal started behind it.
    r.advance(400);
    expect(await r.tokens.token(r.context())).toBe("ya29.one");
    expect(await r.tokens.token(r.context())).toBe("ya29.one");
    await asked(r.ep);
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { access_token: "ya29.two", expires_in: 3600, token_type: "Bearer" });
    await settle();
    expect(await r.tokens.token(r.context())).toBe("ya29.two");
    // Past the expiry (less a minute) with no renewal: a caller waits for a new token.
    r.advance(3600);
    const waited = r.tokens.token(r.context());
    await asked(r.ep);
    r.ep.answer(200, { access_token: "ya29.three", expires_in: 3600, token_type: "Bearer" });
    expect(await waited).toBe("ya29.three");
  });

  test("a token Vertex refused (401) is dropped: the next caller gets a new one", async () => {
    const r = rig();
    const first = r.tokens.token(r.context());
    await asked(r.ep);
    r.ep.answer(200, { access_token: "ya29.one", expires_in: 3600, token_type: "Bearer" });
    expect(await first).toBe("ya29.one");
    expect(r.tokens.invalidate("ya29.other")).toBe(true);
    expect(await r.tokens.token(r.context())).toBe("ya29.one");
    r.tokens.invalidate("ya29.one");
    const second = r.tokens.token(r.context());
    await asked(r.ep);
    r.ep.answer(200, { access_token: "ya29.two", expires_in: 3600, token_type: "Bearer" });
    expect(await second).toBe("ya29.two");
  });

  test("Google refusing the key: a retryable 502 with no detail for the client, logged with the field, then paused for 10 s", async () => {
    const r = rig();
    const first = r.tokens.token(r.context()).catch((e: unknown) => e);
    await asked(r.ep);
    r.ep.answer(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    const error = (await first) as GatewayError;
    expect(isGatewayError(error)).toBe(true);
    expect([error.status, error.retryable, error.type]).toEqual([502, true, "provider_unavailable"]);
    expect(error.message).not.toContain("Signature");
    expect(JSON.stringify(error.metadata)).not.toContain(PEM.slice(40, 80));
    expect(JSON.stringify(r.warnings)).toContain("credentials");
    // Within the pause: the same refusal, no new request.
    expect(await r.tokens.token(r.context()).catch((e: unknown) => e)).toBe(error);
    expect(r.ep.calls).toHaveLength(1);
    r.advance(11);
    const later = r.tokens.token(r.context());
    await asked(r.ep);
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { access_token: "ya29.ok", expires_in: 3600, token_type: "Bearer" });
    expect(await later).toBe("ya29.ok");
  });

  test("Google's own trouble (503) is not paused; an answer without a token is a 502", async () => {
    const r = rig();
    const first = r.tokens.token(r.context()).catch((e: unknown) => e);
    await asked(r.ep);
    r.ep.answer(503, { error: "backend_error" });
    expect(((await first) as GatewayError).status).toBe(502);
    const second = r.tokens.token(r.context()).catch((e: unknown) => e);
    await asked(r.ep);
    expect(r.ep.calls).toHaveLength(2);
    r.ep.answer(200, { token_type: "Bearer" });
    expect(((await second) as GatewayError).metadata?.provider_code).toBe("google_token_invalid_response");
  });

  test("a caller that gives up (its signal) leaves the shared request running for the others", async () => {
    const r = rig();
    const controller = new AbortController();
    const quitter = r.tokens.token(r.context(controller.signal)).catch((e: unknown) => e);
    const stayer = r.tokens.token(r.context());
    await asked(r.ep);
    controller.abort(new Error("client gone"));
    expect(((await quitter) as Error).message).toBe("client gone");
    r.ep.answer(200, { access_token: "ya29.one", expires_in: 3600, token_type: "Bearer" });
    expect(await stayer).toBe("ya29.one");
  });
});

describe("GoogleTokens from the metadata server", () => {
  test("a GET with Metadata-Flavor: Google to the default service account's token URL, cached like a key's", async () => {
    const ep = endpoint();
    const helpers = fakeHelpers({ now: () => 1_700_000_000_000 });
    const tokens = new GoogleTokens(metadataGrant(), "gcp");
    const both = Promise.all([tokens.token({ fetch: ep.fetch, helpers }), tokens.token({ fetch: ep.fetch, helpers })]);
    await asked(ep);
    expect(ep.calls).toHaveLength(1);
    expect([ep.calls[0]!.url, ep.calls[0]!.method, ep.calls[0]!.headers["metadata-flavor"]]).toEqual([METADATA_TOKEN_URL, "GET", "Google"]);
    ep.answer(200, { access_token: "ya29.vm", expires_in: 3599, token_type: "Bearer" });
    expect(await both).toEqual(["ya29.vm", "ya29.vm"]);
    expect(await tokens.token({ fetch: ep.fetch, helpers })).toBe("ya29.vm");
    expect(ep.calls).toHaveLength(1);
  });
});

describe("FixedToken", () => {
  test("the configured token as it is; a 401 cannot renew it", async () => {
    const fixed = new FixedToken("ya29.static");
    expect(await fixed.token()).toBe("ya29.static");
    expect(fixed.invalidate()).toBe(false);
  });
});
