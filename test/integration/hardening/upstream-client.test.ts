/**
 * The gateway's upstream client
 * - never sends a paid request twice: a kept-alive connection the upstream resets after taking the whole request is
 *   a failed attempt (routing falls back), not a silent second send;
 * - takes TLS settings per provider from the config (extra CA, client certificate and key, server name), on both of
 *   its paths (our socket client and Bun's fetch);
 * - decodes gzip, br and zstd answers;
 * - says in a log line when HTTP(S)_PROXY moves every call to Bun's fetch (and the call does go through the proxy).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { brotliCompressSync, gzipSync, zstdCompressSync } from "node:zlib";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { spawnGatewayChild } from "../../support/gateway-process.ts";

type Json = Record<string, any>;

const chatBody = (model: string, extra: Json = {}) => ({ model, messages: [{ role: "user", content: "hi" }], ...extra });
const completion = (text: string) => ({
  id: "c",
  object: "chat.completion",
  created: 1,
  model: "x",
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
});

describe("a paid request is sent once", () => {
  let a: FaultUpstream;
  let b: FaultUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    [a, b] = [startFaultUpstream("a"), startFaultUpstream("b")];
    a.fallback = { kind: "ok", keepAlive: true };
    gw = await startTestGateway({
      file: {
        providers: [
          { id: "a", adapter: "openai", base_url: a.url, models: [{ id: "m/x", pricing: { prompt: 1e-7, completion: 1e-7 } }] },
          { id: "b", adapter: "openai", base_url: b.url, models: [{ id: "m/x", pricing: { prompt: 2e-7, completion: 2e-7 } }] },
        ],
        routing: { max_retries: 0, breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 } },
      },
      overrides: { random: () => 0.5 },
    });
  });

  afterAll(async () => {
    await gw.close();
    a.stop();
    b.stop();
  });

  test("a reset on a kept-alive connection after the upstream took the request: a failed attempt, then b answers", async () => {
    const first = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/x") });
    expect(((await first.json()) as Json).provider).toBe("a");
    // The second request reuses the kept-alive connection; a reads all of it, then resets the connection.
    a.script({ kind: "reset" });
    const second = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/x"), headers: { "X-Service-Metadata": "enabled" } });
    const body = (await second.json()) as Json;
    expect(body.provider).toBe("b");
    expect(a.requests).toHaveLength(2);
    expect(body.service_metadata.attempts.map((x: Json) => [x.provider, x.status])).toEqual([
      ["a", 502],
      ["b", 200],
    ]);
  });
});

describe("TLS settings per provider", () => {
  const fixture = (name: string) => resolve(import.meta.dir, "../../fixtures/tls", name);
  let server: ReturnType<typeof Bun.serve>;
  let gw: TestGateway;

  beforeAll(async () => {
    // A private upstream: certificate of a private CA, for `upstream.test` only, and it requires a client certificate.
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: readFileSync(fixture("server.pem"), "utf8"), key: readFileSync(fixture("server.key"), "utf8"), ca: readFileSync(fixture("ca.pem"), "utf8"), requestCert: true, rejectUnauthorized: true },
      fetch: async (req) => {
        const body = (await req.json()) as Json;
        if (body.stream !== true) return Response.json(completion("private hello"));
        const frame = (chunk: Json) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "x", ...chunk })}\n\n`;
        const text =
          frame({ choices: [{ index: 0, delta: { role: "assistant", content: "private stream" }, finish_reason: null }] }) +
          frame({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
          "data: [DONE]\n\n";
        return new Response(text, { headers: { "content-type": "text/event-stream" } });
      },
    });
    const url = `https://127.0.0.1:${server.port}/v1`;
    gw = await startTestGateway({
      file: {
        providers: [
          {
            id: "private",
            adapter: "openai",
            base_url: url,
            tls: { ca_file: fixture("ca.pem"), cert_file: fixture("client.pem"), key_file: fixture("client.key"), server_name: "upstream.test" },
            models: [{ id: "m/private" }],
          },
          { id: "plain", adapter: "openai", base_url: url, models: [{ id: "m/plain" }] },
        ],
        routing: { max_retries: 0 },
      },
    });
  });

  afterAll(async () => {
    await gw.close();
    server.stop(true);
  });

  test("non-streamed, alone (the gateway's own client) and several at once (Bun's fetch takes some): answered", async () => {
    const one = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/private") });
    expect(((await one.json()) as Json).choices[0].message.content).toBe("private hello");
    const many = await Promise.all(Array.from({ length: 6 }, () => gw.request("/chat/completions", { method: "POST", json: chatBody("m/private") })));
    for (const res of many) expect(((await res.json()) as Json).choices[0].message.content).toBe("private hello");
  });

  test("streamed: answered", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/private", { stream: true }) });
    expect(await res.text()).toContain("private stream");
  });

  test("the same upstream without the provider's settings is refused: 502", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/plain") });
    expect(res.status).toBe(502);
    expect(((await res.json()) as Json).error.metadata.error_type).toBe("provider_unavailable");
  });
});

describe("compressed answers", () => {
  let up: FaultUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    up = startFaultUpstream("zip");
    gw = await startTestGateway({ file: { providers: [{ id: "zip", adapter: "openai", base_url: up.url, models: [{ id: "m/zip" }] }], routing: { max_retries: 0 } } });
  });

  afterAll(async () => {
    await gw.close();
    up.stop();
  });

  const encoders = { gzip: gzipSync, br: brotliCompressSync, zstd: zstdCompressSync } as const;
  for (const [encoding, encode] of Object.entries(encoders)) {
    test(`content-encoding ${encoding}: decoded`, async () => {
      up.script({ kind: "body", body: new Uint8Array(encode(Buffer.from(JSON.stringify(completion(`packed with ${encoding}`))))), headers: { "content-encoding": encoding } });
      const res = await gw.request("/chat/completions", { method: "POST", json: chatBody("m/zip") });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).choices[0].message.content).toBe(`packed with ${encoding}`);
    });
  }
});

describe("HTTP_PROXY", () => {
  test("a log line says calls go through Bun's fetch, and they reach the proxy", async () => {
    const seen: string[] = [];
    // The proxy answers itself: the provider's own address refuses connections, so an answer proves the detour.
    const proxy = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (seen.push(`${req.method} ${req.url}`), Response.json(completion("via the proxy"))) });
    const dir = mkdtempSync(join(tmpdir(), "gw-proxy-"));
    const config = join(dir, "gateway.json");
    writeFileSync(config, JSON.stringify({ providers: [{ id: "far", adapter: "openai", base_url: "http://127.0.0.1:9/v1", models: [{ id: "m/far" }] }], routing: { max_retries: 0 } }));
    const child = spawnGatewayChild({ GATEWAY_ADMIN_KEY: ADMIN_KEY, GATEWAY_CONFIG: config, DATABASE_URL: `sqlite://${join(dir, "gw.db")}`, HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: "", no_proxy: "" });
    try {
      const base = await child.base();
      const line = JSON.parse(await child.waitForLine(/a proxy is set in the environment/)) as Json;
      expect(line.variables).toEqual(["HTTP_PROXY"]);
      const key = ((await (await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "p" }) })).json()) as { key: string }).key;
      const res = await fetch(`${base}/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(chatBody("m/far")) });
      expect(((await res.json()) as Json).choices[0].message.content).toBe("via the proxy");
      expect(seen).toEqual(["POST http://127.0.0.1:9/v1/chat/completions"]);
    } finally {
      await child.kill();
      proxy.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
