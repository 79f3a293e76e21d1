/** core/http/auth-first.ts and core/http/edge-record.ts: one authentication per request, kept with the request. */
import { describe, expect, test } from "bun:test";
import type { Authenticator } from "../../../core/auth/authenticate.ts";
import type { Principal } from "../../../core/auth/principal.ts";
import { oncePerRequest } from "../../../core/http/auth-first.ts";
import { edgeRecordIfAny } from "../../../core/http/edge-record.ts";
import { GatewayError } from "../../../core/errors.ts";

function counting(outcome: (headers: Headers) => Promise<Principal>) {
  const seen: Headers[] = [];
  const auth: Authenticator = {
    authenticate(headers) {
      seen.push(headers);
      return outcome(headers);
    },
  };
  return { auth, seen };
}

const principal: Principal = { keyHash: "abcdef0123456789", name: "k", workspaceId: "ws", isManagement: false, isOperator: false, record: undefined };

describe("oncePerRequest", () => {
  test("the body parser and the route asking for the same request get one look-up and the same principal", async () => {
    const { auth, seen } = counting(async () => principal);
    const edge = oncePerRequest(auth);
    const request = new Request("http://127.0.0.1/api/v1/chat/completions", { method: "POST", headers: { authorization: "Bearer sk-x" }, body: "{}" });
    const first = edge.authenticate(request.headers);
    const second = edge.authenticate(request.headers);
    expect(await first).toBe(principal);
    expect(await second).toBe(principal);
    expect(seen).toHaveLength(1);
    // The key's hash (never the key) is noted for the request's log line.
    expect(edgeRecordIfAny(request.headers)?.keyHash).toBe(principal.keyHash);
  });

  test("another request is looked up again; a refused key is refused to every asker and noted nowhere", async () => {
    const { auth, seen } = counting(async () => Promise.reject(new GatewayError("authentication", "Invalid API key")));
    const edge = oncePerRequest(auth);
    const a = new Headers({ authorization: "Bearer sk-a" });
    const b = new Headers({ authorization: "Bearer sk-a" });
    for (const headers of [a, a, b]) await expect(edge.authenticate(headers)).rejects.toThrow("Invalid API key");
    expect(seen).toEqual([a, b]);
    expect(edgeRecordIfAny(a)?.keyHash).toBeUndefined();
  });
});
