/**
 * Which HTTP client carries a provider call (core/upstream-http/one-shot.ts), seen from the upstream: the gateway's
 * own client says `accept-encoding: identity`, Bun's fetch offers compressed encodings. A one-shot call alone and
 * every stream go through ours; one-shot calls with company go through Bun's (its socket work runs on its own
 * thread). Whatever carries them, the answers are the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Recorded = { headers: Record<string, string>; body: Record<string, unknown> };

let gw: TestGateway;
let upstream: Awaited<ReturnType<typeof startSimulatorServer>>;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startSimulatorServer({ port: 0, hostname: "127.0.0.1", record: true });
  // No fetch override: the gateway's real clients.
  gw = await startTestGateway({
    file: {
      providers: [
        {
          id: "acme",
          adapter: "openai",
          base_url: upstream.url,
          api_key: "upstream-secret",
          models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 32768 }],
        },
      ],
    },
  });
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const encodingsSince = (from: number) => (upstream.requests.slice(from) as Recorded[]).map((r) => r.headers["accept-encoding"]);

test("a one-shot call alone goes through the gateway's own client", async () => {
  const from = upstream.requests.length;
  const completion = await client.chat.completions.create({ model: "acme/model-a", messages: [{ role: "user", content: "alone [sim tokens=3]" }] });
  expect(completion.usage?.completion_tokens).toBe(3);
  expect(encodingsSince(from)).toEqual(["identity"]);
});

test("one-shot calls with company go through Bun's fetch, with the same answers", async () => {
  const from = upstream.requests.length;
  const replies = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      client.chat.completions.create({ model: "acme/model-a", messages: [{ role: "user", content: `together ${i} [sim tokens=4 latency=80]` }] }),
    ),
  );
  for (const reply of replies) {
    expect(reply.usage?.completion_tokens).toBe(4);
    expect(reply.choices[0]?.message.content?.length).toBeGreaterThan(0);
  }
  const encodings = encodingsSince(from);
  expect(encodings).toHaveLength(8);
  // The first found the gateway idle; the others had company.
  expect(encodings.filter((e) => e === "identity").length).toBeLessThan(8);
  expect(encodings.filter((e) => e !== "identity").length).toBeGreaterThanOrEqual(1);
  for (const encoding of encodings.filter((e) => e !== "identity")) expect(encoding).toContain("gzip");
});

test("streams always go through the gateway's own client, also with company", async () => {
  const from = upstream.requests.length;
  const texts = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const stream = await client.chat.completions.create({ model: "acme/model-a", stream: true, messages: [{ role: "user", content: `stream ${i} [sim tokens=5 delay=10]` }] });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      return text;
    }),
  );
  for (const text of texts) expect(text.length).toBeGreaterThan(0);
  expect(encodingsSince(from)).toEqual(Array.from({ length: 6 }, () => "identity"));
});

describe("failures on the Bun-fetch path answer as on ours", () => {
  let failing: TestGateway;
  let moved: ReturnType<typeof Bun.serve>;
  let movedHits = 0;

  beforeAll(async () => {
    // A port nobody listens on: start a server, note its port, stop it.
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${gone.port}/v1`;
    await gone.stop(true);
    // An upstream that moved: every call is redirected to the simulator (which must never see it).
    moved = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        movedHits++;
        return new Response(null, { status: 307, headers: { location: `${upstream.url}/chat/completions` } });
      },
    });
    const model = { id: "acme/b", upstream_model: "model-b", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 32768 };
    failing = await startTestGateway({
      file: {
        providers: [
          { id: "dead", adapter: "openai", base_url: deadUrl, api_key: "k", models: [model] },
          { id: "moved", adapter: "openai", base_url: `http://127.0.0.1:${moved.port}/v1`, api_key: "k", models: [model] },
          { id: "sim", adapter: "openai", base_url: upstream.url, api_key: "k", models: [model] },
        ],
      },
    });
  });

  afterAll(async () => {
    await failing.close();
    await moved.stop(true);
  });

  const together = (count: number, provider: Record<string, unknown>) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        failing.request("/chat/completions", { method: "POST", json: { model: "acme/b", provider, messages: [{ role: "user", content: `n${i} [sim tokens=2 latency=30]` }] } }),
      ),
    );

  test("a refused connection falls back to the next provider", async () => {
    const replies = await together(6, { order: ["dead", "sim"] });
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { provider: string }).provider).toBe("sim");
    }
  });

  test("a redirect is not followed: 502 provider_unavailable, and the redirect target never sees the call", async () => {
    const simBefore = upstream.requests.length;
    const replies = await together(6, { order: ["moved"], allow_fallbacks: false });
    for (const reply of replies) {
      expect(reply.status).toBe(502);
      const body = (await reply.json()) as { error: { code: number; metadata: { error_type: string } } };
      expect(body.error.code).toBe(502);
      expect(body.error.metadata.error_type).toBe("provider_unavailable");
    }
    expect(movedHits).toBeGreaterThanOrEqual(6);
    expect(upstream.requests.length).toBe(simBefore);
  });
});
