/** core/auth/authenticate.ts: credentials → Principal (Bearer or x-api-key), refusals, the env admin key. */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { createAuthenticator, credentialOf, requireInference, requireManagement } from "../../../core/auth/authenticate.ts";
import { KeyCache } from "../../../core/auth/key-cache.ts";
import * as keyMaterial from "../../../core/auth/key-material.ts";
import { GatewayError } from "../../../core/errors.ts";
import { createMemoryKv, type MemoryKv } from "../../../core/kv/memory.ts";
import type { ApiKeyRecord } from "../../../core/store/types/keys.ts";
import { inferencePrincipal, managementPrincipal, manualClock, testConfig } from "../pipeline/helpers.ts";
import { fakeKeyRepo, keyRecord, type FakeKeyRepo } from "./fakes.ts";

const SECRET = "sk-gw-v1-inference-secret";
const ADMIN = "admin-secret-from-env";
const hash = keyMaterial.hashSecret(SECRET);

const kvs: MemoryKv[] = [];
afterEach(async () => {
  for (const kv of kvs.splice(0)) await kv.close();
});

function setup(record: Partial<ApiKeyRecord> | null = {}, adminKey?: string) {
  const clock = manualClock(1_000_000);
  const repo: FakeKeyRepo = fakeKeyRepo(record === null ? [] : [keyRecord(hash, { name: "my key", workspaceId: "ws-9", ...record })]);
  const kv = createMemoryKv();
  kvs.push(kv);
  const auth = createAuthenticator({ config: testConfig({ adminKey }), keyCache: new KeyCache(repo, kv, clock.now), clock }, "ws-default");
  return { auth, repo, clock };
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).status).toBe(401);
  expect((error as GatewayError).type).toBe("authentication");
  return error as GatewayError;
}

describe("credentialOf", () => {
  test("reads Bearer (any case, extra spaces) or x-api-key", () => {
    expect(credentialOf(new Headers({ authorization: `Bearer ${SECRET}` }))).toBe(SECRET);
    expect(credentialOf(new Headers({ authorization: `bearer   ${SECRET}  ` }))).toBe(SECRET);
    expect(credentialOf(new Headers({ "x-api-key": ` ${SECRET} ` }))).toBe(SECRET);
  });

  test("Authorization wins over x-api-key; a non-Bearer scheme or an empty token is no credential", () => {
    expect(credentialOf(new Headers({ authorization: "Bearer from-auth", "x-api-key": "from-x" }))).toBe("from-auth");
    expect(credentialOf(new Headers({ authorization: "Basic dXNlcjpwYXNz", "x-api-key": "from-x" }))).toBeUndefined();
    expect(credentialOf(new Headers({ authorization: "Bearer " }))).toBeUndefined();
    expect(credentialOf(new Headers({ "x-api-key": "  " }))).toBeUndefined();
    expect(credentialOf(new Headers())).toBeUndefined();
  });
});

describe("authenticate", () => {
  test("a stored key sent as Bearer resolves to its principal", async () => {
    const { auth } = setup();
    const principal = await auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` }));
    expect(principal).toMatchObject({ keyHash: hash, name: "my key", workspaceId: "ws-9", isManagement: false });
    expect(principal.record?.hash).toBe(hash);
  });

  test("the same key sent as x-api-key (Anthropic clients) works", async () => {
    const { auth } = setup({ isManagement: true });
    const principal = await auth.authenticate(new Headers({ "x-api-key": SECRET }));
    expect(principal.isManagement).toBe(true);
  });

  test("no credential is 401 Missing authentication header", async () => {
    const { auth, repo } = setup();
    expect((await refusal(auth.authenticate(new Headers()))).message).toBe("Missing authentication header");
    expect(repo.lookups).toEqual([]);
  });

  test("an unknown key is 401 Invalid API key; the lookup is by hash, never by secret", async () => {
    const { auth, repo } = setup(null);
    expect((await refusal(auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` })))).message).toBe("Invalid API key");
    expect(repo.lookups).toEqual([hash]);
  });

  test("a disabled key is 401 at once", async () => {
    const { auth } = setup({ disabled: true });
    expect((await refusal(auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` })))).message).toBe("API key is disabled");
  });

  test("an expired key is 401; one expiring later is accepted", async () => {
    const expired = setup({ expiresAt: 1_000_000 });
    expect((await refusal(expired.auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` })))).message).toBe("API key has expired");
    const later = setup({ expiresAt: 1_000_001 });
    await expect(later.auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` }))).resolves.toBeDefined();
    later.clock.advance(1);
    await refusal(later.auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` })));
  });

  test("a record whose stored hash does not match the presented one is refused", async () => {
    // A faulty lookup that returns some other key's row: the hash is re-checked (in constant time) before use.
    const { auth, repo } = setup();
    repo.rows.set(hash, keyRecord(keyMaterial.hashSecret("someone-else")));
    await refusal(auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` })));
  });

  test("GATEWAY_ADMIN_KEY is a management principal without a stored record or database lookup", async () => {
    const { auth, repo } = setup(null, ADMIN);
    const principal = await auth.authenticate(new Headers({ authorization: `Bearer ${ADMIN}` }));
    expect(principal).toEqual({
      keyHash: keyMaterial.hashSecret(ADMIN),
      name: "GATEWAY_ADMIN_KEY",
      workspaceId: "ws-default",
      isManagement: true,
      isOperator: true,
      record: undefined,
    });
    expect(repo.lookups).toEqual([]);
  });

  test("without GATEWAY_ADMIN_KEY that secret is just an unknown key; stored keys still work next to it", async () => {
    await refusal(setup(null).auth.authenticate(new Headers({ authorization: `Bearer ${ADMIN}` })));
    const withAdmin = setup({}, ADMIN);
    expect((await withAdmin.auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` }))).name).toBe("my key");
  });

  test("hashes are compared with the constant-time helper, one hash per check", async () => {
    const { auth } = setup({}, ADMIN);
    const compare = spyOn(keyMaterial, "sameHash");
    const hashing = spyOn(keyMaterial, "hashSecret");
    try {
      await auth.authenticate(new Headers({ authorization: `Bearer ${SECRET}` }));
      expect(compare).toHaveBeenCalledTimes(2); // against the admin hash, then against the stored record
      expect(compare.mock.calls[1]).toEqual([hash, hash]);
      expect(hashing).toHaveBeenCalledTimes(1);
    } finally {
      compare.mockRestore();
      hashing.mockRestore();
    }
  });
});

describe("requireManagement / requireInference", () => {
  test("management operations need a management key", () => {
    expect(() => requireManagement(managementPrincipal)).not.toThrow();
    const error = (() => {
      try {
        requireManagement(inferencePrincipal);
      } catch (e) {
        return e as GatewayError;
      }
    })();
    expect([error?.status, error?.type, error?.message]).toEqual([403, "permission_denied", "Only management keys can perform this operation"]);
  });

  test("inference needs an inference key", () => {
    expect(() => requireInference(inferencePrincipal)).not.toThrow();
    expect(() => requireInference(managementPrincipal)).toThrow("Management keys cannot be used for inference");
  });
});
