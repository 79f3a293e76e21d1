/**
 * A non-streamed call has a bound of its own — max(`routing.request_timeout_ms`,
 * margin × max_tokens ÷ the endpoint's output speed), or the provider's `timeouts.request_ms` — so a long answer is
 * not cut by a first-byte bound, while a hung endpoint is abandoned when the bound expires and the request falls
 * back while the client waits, even past the retry deadline (the wait was not retry time).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

let slow: FaultUpstream;
let fixed: FaultUpstream;
let backup: FaultUpstream;
let gw: TestGateway;

beforeAll(async () => {
  [slow, fixed, backup] = [startFaultUpstream("slow"), startFaultUpstream("fixed"), startFaultUpstream("backup")];
  const model = (id: string, price: number) => [{ id, pricing: { prompt: price, completion: price } }];
  gw = await startTestGateway({
    file: {
      providers: [
        // Declares its speed: 10 output tokens per second, a margin of 2.
        { id: "slow", adapter: "openai", base_url: slow.url, timeouts: { output_tokens_per_second: 10, margin: 2, first_byte_ms: 200 }, models: [...model("m/slow", 1e-7), ...model("m/stream", 1e-7)] },
        // A fixed bound, whatever max_tokens.
        { id: "fixed", adapter: "openai", base_url: fixed.url, timeouts: { request_ms: 200, output_tokens_per_second: 1 }, models: model("m/fixed", 1e-7) },
        { id: "backup", adapter: "openai", base_url: backup.url, models: [...model("m/slow", 2e-7), ...model("m/fixed", 2e-7), ...model("m/stream", 2e-7)] },
      ],
      // A short retry deadline and a short floor: the bound of these calls comes from max_tokens and the speed.
      routing: { request_timeout_ms: 300, first_byte_timeout_ms: 5_000, retry_deadline_ms: 100, max_retries: 0, breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 } },
    },
    overrides: { random: () => 0.5 },
  });
});

afterAll(async () => {
  await gw.close();
  for (const u of [slow, fixed, backup]) u.stop();
});

beforeEach(() => {
  for (const u of [slow, fixed, backup]) u.requests.length = 0;
});

const ask = (model: string, maxTokens: number, extra: Json = {}) =>
  gw.request("/chat/completions", { method: "POST", headers: { "X-Service-Metadata": "enabled" }, json: { model, max_tokens: maxTokens, messages: [{ role: "user", content: "hi" }], ...extra } });

describe("the bound of a non-streamed call", () => {
  test("a hung endpoint is abandoned at the bound and the next endpoint answers, past the retry deadline", async () => {
    slow.script({ kind: "hang" });
    const started = performance.now();
    // 2 × 2 tokens ÷ 10 per second = 400 ms, above the 300 ms floor.
    const res = await ask("m/slow", 2);
    const body = (await res.json()) as Json;
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(body.provider).toBe("backup");
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(2_000);
    expect(body.service_metadata.attempts.map((x: Json) => [x.provider, x.status, x.error_type])).toEqual([
      ["slow", 408, "timeout"],
      ["backup", 200, null],
    ]);
  });

  test("a long answer within margin × max_tokens ÷ speed is not cut", async () => {
    // 2 × 10 tokens ÷ 10 per second = 2 s; the answer takes 700 ms (more than the 300 ms floor).
    slow.script({ kind: "ok", latencyMs: 700 });
    const res = await ask("m/slow", 10);
    expect(((await res.json()) as Json).provider).toBe("slow");
    expect(backup.requests).toHaveLength(0);
  });

  test("a provider's timeouts.request_ms replaces the computed bound", async () => {
    // The computed bound would be 2 × 10 ÷ 1 = 20 s; the provider says 200 ms.
    fixed.script({ kind: "ok", latencyMs: 700 });
    const started = performance.now();
    const res = await ask("m/fixed", 10);
    expect(((await res.json()) as Json).provider).toBe("backup");
    expect(performance.now() - started).toBeLessThan(650);
  });

  test("a stream: a provider's timeouts.first_byte_ms replaces routing.first_byte_timeout_ms", async () => {
    slow.script({ kind: "hang" });
    const started = performance.now();
    const res = await ask("m/stream", 10, { stream: true });
    const text = await res.text();
    expect(text).toContain('"provider":"backup"');
    expect(text).toContain('{"model":"m/stream","provider":"slow","status":408,"error_type":"timeout"');
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
