/**
 * An upstream 200 whose JSON is not the answer asked for (`{"hello":"world"}`) is a
 * retryable 502 like invalid JSON — never an empty "successful" completion with zero usage — for every adapter;
 * with a second endpoint, that one answers. The same for a 200 stream whose events have no recognisable shape: it
 * fails before the first byte (so the next endpoint is tried), through the official `openai` client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
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

describe("a 200 stream of the wrong shape (`data: {\"hello\":\"world\"}` then `[DONE]`)", () => {
  const sse = (body: string) => ({ kind: "body", body, headers: { "content-type": "text/event-stream" } }) as const;
  const WRONG_STREAM = sse('data: {"hello":"world"}\n\ndata: [DONE]\n\n');
  /** Other streams with nothing recognisable in them: a typed event nobody knows, an empty object, only the sentinel. */
  const OTHER_WRONG_STREAMS = [sse('data: {"type":"hello"}\n\ndata: [DONE]\n\n'), sse("data: {}\n\ndata: [DONE]\n\n"), sse("data: [DONE]\n\n")];
  let oddStream: FaultUpstream;
  let healthy: FaultUpstream;
  let streams: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    oddStream = startFaultUpstream("odd");
    healthy = startFaultUpstream("good");
    oddStream.fallback = WRONG_STREAM;
    streams = await startTestGateway({
      file: {
        providers: [
          // Per adapter: a model only the odd upstream serves, and one it serves first (cheaper) before a healthy one.
          ...ADAPTERS.map((adapter) => ({
            id: `odd-${adapter}`,
            adapter,
            base_url: oddStream.url,
            api_key: "k",
            models: [{ id: `only/${adapter}` }, { id: `two/${adapter}`, pricing: { prompt: 1e-7, completion: 1e-7 } }],
          })),
          { id: "good", adapter: "openai", base_url: healthy.url, models: ADAPTERS.map((adapter) => ({ id: `two/${adapter}`, pricing: { prompt: 2e-7, completion: 2e-7 } })) },
        ],
        routing: { max_retries: 0, breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 } },
      },
      overrides: { random: () => 0.5 },
    });
    client = new OpenAI({ baseURL: streams.baseUrl, apiKey: streams.inferenceKey, maxRetries: 0 });
  });

  afterAll(async () => {
    await streams.close();
    oddStream.stop();
    healthy.stop();
  });

  const ask = (model: string) => client.chat.completions.create({ model, max_tokens: 16, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] });

  for (const adapter of ADAPTERS) {
    test(`${adapter} adapter, one endpoint: a retryable 502 before the first byte, not an empty success`, async () => {
      const error = (await ask(`only/${adapter}`).then(
        () => undefined,
        (e: unknown) => e,
      )) as InstanceType<typeof OpenAI.APIError> | undefined;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error!.status).toBe(502);
      expect((error!.error as Json).metadata).toMatchObject({ error_type: "provider_unavailable" });
    });

    test(`${adapter} adapter: other streams with nothing recognisable fail the same way`, async () => {
      for (const wrong of OTHER_WRONG_STREAMS) {
        oddStream.script(wrong);
        const error = (await ask(`only/${adapter}`).then(
          () => undefined,
          (e: unknown) => e,
        )) as InstanceType<typeof OpenAI.APIError> | undefined;
        expect({ body: wrong.body, status: error?.status }).toEqual({ body: wrong.body, status: 502 });
      }
    });

    test(`${adapter} adapter, two endpoints: the second is tried and the client gets its answer`, async () => {
      const before = { odd: oddStream.requests.length, good: healthy.requests.length };
      let text = "";
      let usage: Json | undefined;
      for await (const chunk of await ask(`two/${adapter}`)) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (chunk.usage) usage = chunk.usage as Json;
      }
      expect(text).toBe("hello from good");
      expect(usage?.completion_tokens).toBe(3);
      expect({ odd: oddStream.requests.length - before.odd, good: healthy.requests.length - before.good }).toEqual({ odd: 1, good: 1 });
    });
  }
});
