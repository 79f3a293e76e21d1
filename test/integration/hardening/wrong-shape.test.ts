/**
 * Issue 16 item 15, through HTTP: an upstream 200 whose JSON is not the answer asked for (`{"hello":"world"}`) is a
 * retryable 502 like invalid JSON — never an empty "successful" completion with zero usage — for every adapter;
 * with a second endpoint, that one answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

const ADAPTERS = ["openai", "anthropic", "gemini", "openai-responses"] as const;
const WRONG = { kind: "body", body: '{"hello":"world"}' } as const;

let odd: FaultUpstream;
let good: FaultUpstream;
let gw: TestGateway;

beforeAll(async () => {
  odd = startFaultUpstream("odd");
  good = startFaultUpstream("good");
  odd.fallback = WRONG;
  gw = await startTestGateway({
    file: {
      providers: [
        // One model per adapter, each served only by the upstream that answers the wrong shape.
        ...ADAPTERS.map((adapter) => ({ id: `odd-${adapter}`, adapter, base_url: odd.url, api_key: "k", models: [{ id: `only/${adapter}` }] })),
        // And one model served by it first (cheaper), then by a healthy upstream.
        { id: "odd", adapter: "openai", base_url: odd.url, models: [{ id: "m/x", pricing: { prompt: 1e-7, completion: 1e-7 } }] },
        { id: "good", adapter: "openai", base_url: good.url, models: [{ id: "m/x", pricing: { prompt: 2e-7, completion: 2e-7 } }] },
      ],
      routing: { max_retries: 0, breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 } },
    },
    overrides: { random: () => 0.5 },
  });
});

afterAll(async () => {
  await gw.close();
  odd.stop();
  good.stop();
});

const chat = (model: string) => gw.request("/chat/completions", { method: "POST", json: { model, max_tokens: 16, messages: [{ role: "user", content: "hi" }] } });

describe("a 200 of the wrong shape", () => {
  for (const adapter of ADAPTERS) {
    test(`${adapter} adapter: a 502 provider_unavailable, not an empty answer`, async () => {
      const res = await chat(`only/${adapter}`);
      const body = (await res.json()) as Json;
      expect(res.status).toBe(502);
      expect(body.error.metadata).toMatchObject({ error_type: "provider_unavailable", provider_code: "invalid_response" });
    });
  }

  test("is retryable: the next endpoint answers", async () => {
    const res = await chat("m/x");
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.choices[0].message.content).toBe("hello from good");
    expect(body.usage.completion_tokens).toBe(3);
  });
});
