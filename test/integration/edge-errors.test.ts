/** Every error the HTTP edge can produce uses the envelope with an `error_type`. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway({ file: { server: { body_limit_bytes: 4096 } } })));
afterAll(async () => gw.close());

type Envelope = { error: { code: number; message: string; metadata: { error_type: string } }; service_metadata: unknown; user_id: unknown };

async function envelope(res: Response, status: number, type: string): Promise<Envelope> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-generation-id")).toMatch(/^gen-/);
  const body = (await res.json()) as Envelope;
  expect(body.error.code).toBe(status);
  expect(body.error.metadata.error_type).toBe(type);
  expect(body).toHaveProperty("service_metadata", null);
  expect(body).toHaveProperty("user_id", null);
  return body;
}

describe("edge errors", () => {
  test("malformed JSON → 400", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    await envelope(res, 400, "invalid_request");
  });

  test("schema violation → 400 naming the field", async () => {
    const body = await envelope(await gw.request("/chat/completions", { method: "POST", json: { model: 5, messages: [{ role: "user", content: "x" }] } }), 400, "invalid_request");
    expect(body.error.message).toContain("model");
  });

  test("a message's bad field is named on the branch its role picks, not another role's (a user `name` was blamed on `tool_call_id`)", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ role: "user", content: "hi", name: 5 }, "messages.0.name"],
      [{ role: "assistant", content: "x", name: 5 }, "messages.0.name"],
      [{ role: "system", content: 5 }, "messages.0.content"],
      [{ role: "tool", content: "x", tool_call_id: 5 }, "messages.0.tool_call_id"],
    ];
    for (const [message, param] of cases) {
      const body = await envelope(await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [message] } }), 400, "invalid_request");
      expect((body.error.metadata as unknown as { param: string }).param).toBe(param);
      expect(body.error.message).toContain(param);
    }
  });

  test("unknown route → 404", async () => {
    await envelope(await gw.request("/nothing-here", { method: "GET" }), 404, "not_found");
  });

  test("wrong method → 405 with Allow", async () => {
    const res = await gw.request("/chat/completions", { method: "GET" });
    expect(res.headers.get("allow")).toContain("POST");
    await envelope(res, 405, "invalid_request");
  });

  test("body over the configured limit → 413", async () => {
    const big = { model: "simulator/small", messages: [{ role: "user", content: "x".repeat(5000) }] };
    await envelope(await gw.request("/chat/completions", { method: "POST", json: big }), 413, "payload_too_large");
  });

  /** A chat body of exactly `bytes` bytes (the content is padded). */
  const bodyOf = (bytes: number): string => {
    const bare = JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "" }] });
    const body = JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "x".repeat(bytes - bare.length) }] });
    expect(body.length).toBe(bytes);
    return body;
  };
  /** The same bytes sent without a content-length (chunked), in pieces. */
  const chunked = (body: string): ReadableStream<Uint8Array> => {
    const bytes = new TextEncoder().encode(body);
    return new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.subarray(at, at + 1000));
        controller.close();
      },
    });
  };

  test("the limit is exact with a declared length: 4096 bytes are served, 4097 are a 413 envelope", async () => {
    const json = { "content-type": "application/json" };
    const atLimit = await gw.request("/chat/completions", { method: "POST", body: bodyOf(4096), headers: json });
    expect(atLimit.status).toBe(200);
    await envelope(await gw.request("/chat/completions", { method: "POST", body: bodyOf(4097), headers: json }), 413, "payload_too_large");
  });

  test("a body far over the limit gets the envelope too (the server has no bare cap of its own)", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", body: bodyOf(200_000), headers: { "content-type": "application/json" } });
    await envelope(res, 413, "payload_too_large");
  });

  test("without a declared length (chunked) the limit holds at the same byte, and bad JSON is a 400", async () => {
    const json = { "content-type": "application/json" };
    const atLimit = await gw.request("/chat/completions", { method: "POST", body: chunked(bodyOf(4096)), headers: json });
    expect(atLimit.headers.get("x-generation-id")).toMatch(/^gen-/);
    expect(atLimit.status).toBe(200);
    await envelope(await gw.request("/chat/completions", { method: "POST", body: chunked(bodyOf(4097)), headers: json }), 413, "payload_too_large");
    await envelope(await gw.request("/chat/completions", { method: "POST", body: chunked(bodyOf(200_000)), headers: json }), 413, "payload_too_large");
    await envelope(await gw.request("/chat/completions", { method: "POST", body: chunked("{not json"), headers: json }), 400, "invalid_request");
  });

  test("missing and invalid credentials → 401", async () => {
    const json = { model: "simulator/small", messages: [{ role: "user", content: "x" }] };
    const missing = await envelope(await gw.request("/chat/completions", { method: "POST", json, key: null }), 401, "authentication");
    expect(missing.error.message).toContain("Missing authentication");
    await envelope(await gw.request("/chat/completions", { method: "POST", json, key: "sk-gw-v1-wrong" }), 401, "authentication");
  });

  test("a management key cannot run inference → 403", async () => {
    const json = { model: "simulator/small", messages: [{ role: "user", content: "x" }] };
    await envelope(await gw.request("/chat/completions", { method: "POST", json, key: ADMIN_KEY }), 403, "permission_denied");
  });

  test("an inference key cannot manage keys → 403 with the spec's message", async () => {
    const body = await envelope(await gw.request("/keys", { method: "GET" }), 403, "permission_denied");
    expect(body.error.message).toBe("Only management keys can perform this operation");
  });

  test("a plugin the gateway does not have → 400", async () => {
    const json = { model: "simulator/small", messages: [{ role: "user", content: "x" }], plugins: [{ id: "web" }] };
    const body = await envelope(await gw.request("/chat/completions", { method: "POST", json }), 400, "invalid_request");
    expect(body.error.message).toContain("web");
  });

  test("health needs no key; docs are served from the schemas", async () => {
    const health = await gw.request("/health", { key: null });
    expect(await health.json()).toEqual({ status: "ok" });
    const docs = await fetch(`${gw.origin}/docs/json`);
    const spec = (await docs.json()) as { paths: Record<string, { post?: { requestBody?: unknown } }> };
    expect(spec.paths["/api/v1/chat/completions"]?.post?.requestBody).toBeDefined();
  });
});
