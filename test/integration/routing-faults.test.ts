/**
 * Fault injection through HTTP: one model served by three loopback upstreams (test/support/fault-upstream.ts) that
 * fail on command — 500/502/503, 429 with Retry-After, connection reset, hang, malformed body, stream cut or stalled
 * mid-way. The client gets the next endpoint's answer, or the right status and envelope; upstream attempts are
 * counted. Timeouts and backoffs are short through the config, so the suite stays fast.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFaultUpstream, type FaultUpstream } from "../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Json = Record<string, any>;

let a: FaultUpstream;
let b: FaultUpstream;
let c: FaultUpstream;
let gw: TestGateway;

const ROUTING = {
  first_byte_timeout_ms: 300,
  request_timeout_ms: 400,
  idle_timeout_ms: 300,
  retry_deadline_ms: 3_000,
  max_retries: 1,
  backoff_base_ms: 5,
  backoff_max_ms: 20,
  // High: these tests fail endpoints on purpose and must not trip the breaker (breaker tests have their own gateway).
  breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 },
};

function provider(id: string, upstream: FaultUpstream, price: number) {
  return { id, adapter: "openai", base_url: upstream.url, models: [{ id: "m/x", upstream_model: `x-${id}`, pricing: { prompt: price, completion: price } }] };
}

beforeAll(async () => {
  [a, b, c] = [startFaultUpstream("a"), startFaultUpstream("b"), startFaultUpstream("c")];
  gw = await startTestGateway({
    file: { providers: [provider("a", a, 1e-7), provider("b", b, 2e-7), provider("c", c, 4e-7)], routing: ROUTING },
    // Fixed randomness: default balancing then always orders cheapest first (a, b, c).
    overrides: { random: () => 0.5 },
  });
});

afterAll(async () => {
  await gw.close();
  for (const u of [a, b, c]) u.stop();
});

beforeEach(() => {
  for (const u of [a, b, c]) u.requests.length = 0;
});

const chat = (extra: Json = {}, headers: Record<string, string> = {}) =>
  gw.request("/chat/completions", { method: "POST", headers, json: { model: "m/x", messages: [{ role: "user", content: "hi" }], ...extra } });
const counts = () => [a.requests.length, b.requests.length, c.requests.length];

async function sseEvents(res: Response): Promise<Json[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .map((frame) => frame.trim())
    .filter((frame) => frame.startsWith("data: ") && frame !== "data: [DONE]")
    .map((frame) => JSON.parse(frame.slice(6)) as Json);
}

describe("non-streamed failures fall back", () => {
  for (const status of [500, 502, 503]) {
    test(`${status} twice on a (retried once), then b answers; service_metadata lists every attempt`, async () => {
      a.script({ kind: "status", status }, { kind: "status", status });
      const res = await chat({}, { "X-Service-Metadata": "enabled" });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body.choices[0].message.content).toBe("hello from b");
      expect(body.provider).toBe("b");
      expect(counts()).toEqual([2, 1, 0]);
      const meta = body.service_metadata;
      expect(meta.attempt).toBe(3);
      expect(meta.strategy).toBe("fallback");
      expect(meta.summary).toBe("Fell back after 2 failed attempt(s) to b for m/x");
      expect(meta.attempts.map((x: Json) => [x.provider, x.status])).toEqual([
        // An upstream's 503 is its failure, reported as 502: 503 is the gateway's own unavailability.
        ["a", 502],
        ["a", 502],
        ["b", 200],
      ]);
      expect(meta.endpoints.available.map((e: Json) => [e.provider, e.selected])).toEqual([
        ["a", false],
        ["b", true],
        ["c", false],
      ]);
    });
  }

  test("429 with a short Retry-After: waited for, then a answers", async () => {
    a.script({ kind: "status", status: 429, retryAfter: "0.2" });
    const started = performance.now();
    const res = await chat();
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).provider).toBe("a");
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(counts()).toEqual([2, 0, 0]);
  });

  test("429 with a Retry-After beyond the retry deadline: no sleep, b answers at once", async () => {
    a.script({ kind: "status", status: 429, retryAfter: "30" });
    const started = performance.now();
    const res = await chat();
    expect(((await res.json()) as Json).provider).toBe("b");
    expect(performance.now() - started).toBeLessThan(500);
    expect(counts()).toEqual([1, 1, 0]);
  });

  test("connection reset, then a malformed body: both retried on a, then b", async () => {
    a.script({ kind: "reset" }, { kind: "malformed" });
    const res = await chat();
    expect(((await res.json()) as Json).provider).toBe("b");
    expect(counts()).toEqual([2, 1, 0]);
  });

  test("a hung upstream times out after request_timeout_ms (408, not retried on it) and b answers", async () => {
    a.script({ kind: "hang" });
    const started = performance.now();
    // One token at any speed takes less than the floor: the bound is request_timeout_ms itself.
    const res = await chat({ max_tokens: 1 }, { "X-Service-Metadata": "enabled" });
    const body = (await res.json()) as Json;
    expect(body.provider).toBe("b");
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(body.service_metadata.attempts.map((x: Json) => [x.provider, x.status, x.error_type])).toEqual([
      ["a", 408, "timeout"],
      ["b", 200, null],
    ]);
  });

  test("every endpoint failing in different ways: a 502 with previous_errors, after each endpoint was tried", async () => {
    a.script({ kind: "status", status: 500 }, { kind: "status", status: 500 });
    b.script({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    c.script({ kind: "status", status: 429 }, { kind: "status", status: 429 });
    const res = await chat();
    expect(res.status).toBe(502);
    const body = (await res.json()) as Json;
    expect(body.error.metadata.error_type).toBe("provider_unavailable");
    expect(body.error.metadata.previous_errors.map((e: Json) => [e.provider, e.code])).toEqual([
      ["a", 502],
      ["a", 502],
      ["b", 502],
      ["b", 502],
      ["c", 429],
      ["c", 429],
    ]);
    expect(counts()).toEqual([2, 2, 2]);
    expect(res.headers.get("x-generation-id")).toBeTruthy();
  });

  test("allow_fallbacks false: only the first endpoint, and its error is returned", async () => {
    a.script({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    const res = await chat({ provider: { allow_fallbacks: false } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as Json).error.metadata.error_type).toBe("provider_unavailable");
    expect(counts()).toEqual([2, 0, 0]);
  });

  test("fail once, then succeed: the retry on the same endpoint is invisible to the client", async () => {
    a.script({ kind: "status", status: 502 });
    const res = await chat({ provider: { only: ["a"] } });
    expect(res.status).toBe(200);
    expect(counts()).toEqual([2, 0, 0]);
  });
});

describe("streamed failures", () => {
  const stream = { stream: true, stream_options: { include_usage: true } };

  test("cut before any output: falls back, the client sees one clean stream from b", async () => {
    a.script({ kind: "cut", afterChunks: 0 }, { kind: "cut", afterChunks: 0 });
    const res = await chat(stream);
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    const text = events.map((e) => e.choices?.[0]?.delta?.content ?? "").join("");
    expect(text).toBe("hello from b");
    expect(events.at(-1)!.usage.cost).toBeGreaterThan(0);
    expect(counts()).toEqual([2, 1, 0]);
  });

  test("no first byte within first_byte_timeout_ms: b serves", async () => {
    a.script({ kind: "hang" });
    const res = await chat(stream);
    const events = await sseEvents(res);
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? "").join("")).toBe("hello from b");
    expect(counts()).toEqual([1, 1, 0]);
  });

  test("cut after output started: the error is in-band, nothing is retried", async () => {
    a.script({ kind: "cut", afterChunks: 2 });
    const res = await chat(stream);
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? "").join("")).toBe("partial answer");
    const last = events.at(-1)!;
    expect(last.error.metadata.error_type).toBe("provider_unavailable");
    expect(last.choices[0].finish_reason).toBe("error");
    expect(counts()).toEqual([1, 0, 0]);
  });

  test("a stream that stalls after output ends with an in-band 524 timeout after idle_timeout_ms", async () => {
    a.script({ kind: "stall", afterChunks: 2 });
    const started = performance.now();
    const res = await chat(stream);
    const events = await sseEvents(res);
    const last = events.at(-1)!;
    expect(last.error.code).toBe(524);
    expect(last.error.metadata.error_type).toBe("timeout");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(counts()).toEqual([1, 0, 0]);
  });

  test("a malformed stream before any output is retried, then b serves", async () => {
    a.script({ kind: "malformed" }, { kind: "malformed" });
    const events = await sseEvents(await chat(stream));
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? "").join("")).toBe("hello from b");
    expect(counts()).toEqual([2, 1, 0]);
  });
});

describe("every inbound format falls back alike", () => {
  test("Responses: a 503 on a, the answer from b", async () => {
    a.script({ kind: "status", status: 503 }, { kind: "status", status: 503 });
    const res = await gw.request("/responses", { method: "POST", json: { model: "m/x", input: "hi" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.output[0].content[0].text).toBe("hello from b");
    expect(body.usage.cost).toBeGreaterThan(0);
    expect(counts()).toEqual([2, 1, 0]);
  });

  test("Messages: a reset on a, the answer from b", async () => {
    a.script({ kind: "reset" }, { kind: "reset" });
    const res = await gw.request("/messages", { method: "POST", json: { model: "m/x", max_tokens: 50, messages: [{ role: "user", content: "hi" }] } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body.content[0].text).toBe("hello from b");
    expect(counts()).toEqual([2, 1, 0]);
  });
});

describe("circuit breaker", () => {
  let flaky: FaultUpstream;
  let steady: FaultUpstream;
  let breakerGw: TestGateway;

  beforeAll(async () => {
    [flaky, steady] = [startFaultUpstream("flaky"), startFaultUpstream("steady")];
    breakerGw = await startTestGateway({
      file: {
        providers: [provider("flaky", flaky, 1e-7), provider("steady", steady, 2e-7)],
        routing: { ...ROUTING, max_retries: 0, breaker: { failure_threshold: 2, failure_window_ms: 10_000, cooldown_ms: 400 } },
      },
      overrides: { random: () => 0.5 },
    });
  });
  afterAll(async () => {
    await breakerGw.close();
    flaky.stop();
    steady.stop();
  });

  test("an endpoint that keeps failing cools down: skipped until the cooldown ends, then probed again", async () => {
    const ask = () => breakerGw.request("/chat/completions", { method: "POST", json: { model: "m/x", messages: [{ role: "user", content: "hi" }] } });
    flaky.script({ kind: "status", status: 500 }, { kind: "status", status: 500 });
    for (let i = 0; i < 2; i++) expect(((await (await ask()).json()) as Json).provider).toBe("steady");
    expect(flaky.requests).toHaveLength(2);
    for (let i = 0; i < 3; i++) expect(((await (await ask()).json()) as Json).provider).toBe("steady");
    expect(flaky.requests).toHaveLength(2);
    await Bun.sleep(450);
    expect(((await (await ask()).json()) as Json).provider).toBe("flaky");
    expect(flaky.requests).toHaveLength(3);
  });
});
