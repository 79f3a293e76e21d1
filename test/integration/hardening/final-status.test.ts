/**
 * When every endpoint fails, the status says what kind of failure it was, whatever
 * endpoint happened to be tried last — upstream 5xx, refused connections, bad bodies and redirects → 502; all rate
 * limits → 429 with the soonest Retry-After; all overloaded → 529; all time-outs → 408; and `previous_errors` keeps
 * every attempt's provider, status and type. Three loopback upstreams (test/support/fault-upstream.ts) fail on
 * command; each is tried once (no retries), cheapest first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFaultUpstream, type Fault, type FaultUpstream } from "../../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

let a: FaultUpstream;
let b: FaultUpstream;
let c: FaultUpstream;
let gw: TestGateway;

function provider(id: string, upstream: FaultUpstream, price: number) {
  return { id, adapter: "openai", base_url: upstream.url, models: [{ id: "m/x", upstream_model: `x-${id}`, pricing: { prompt: price, completion: price } }] };
}

beforeAll(async () => {
  [a, b, c] = [startFaultUpstream("a"), startFaultUpstream("b"), startFaultUpstream("c")];
  gw = await startTestGateway({
    file: {
      providers: [provider("a", a, 1e-7), provider("b", b, 2e-7), provider("c", c, 4e-7)],
      routing: {
        max_retries: 0,
        request_timeout_ms: 300,
        first_byte_timeout_ms: 300,
        retry_deadline_ms: 5_000,
        breaker: { failure_threshold: 1_000, failure_window_ms: 60_000, cooldown_ms: 60_000 },
      },
    },
    // Fixed randomness: the cheapest endpoint first (a, b, c).
    overrides: { random: () => 0.5 },
  });
});

afterAll(async () => {
  await gw.close();
  for (const u of [a, b, c]) u.stop();
});

/** One request where a, b and c fail as given; max_tokens 1 keeps the non-streamed time-out at its 300 ms floor. */
async function failing(faults: [Fault, Fault, Fault]): Promise<{ res: Response; body: Json }> {
  for (const u of [a, b, c]) u.requests.length = 0;
  a.script(faults[0]);
  b.script(faults[1]);
  c.script(faults[2]);
  const res = await gw.request("/chat/completions", { method: "POST", json: { model: "m/x", max_tokens: 1, messages: [{ role: "user", content: "hi" }] } });
  expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([1, 1, 1]);
  return { res, body: (await res.json()) as Json };
}

const status = (code: number, retryAfter?: string): Fault => ({ kind: "status", status: code, ...(retryAfter ? { retryAfter } : {}) });

describe("every endpoint failed: one status per kind of failure", () => {
  test("5xx, a refused connection, a bad body and a redirect: 502, in either order", async () => {
    for (const order of [
      [status(500), { kind: "reset" }, { kind: "malformed" }],
      [{ kind: "malformed" }, status(307), status(503)],
    ] as Array<[Fault, Fault, Fault]>) {
      const { res, body } = await failing(order);
      expect(res.status).toBe(502);
      expect(body.error.metadata.error_type).toBe("provider_unavailable");
    }
  });

  test("rate limits everywhere: 429 with the soonest Retry-After any endpoint named", async () => {
    const { res, body } = await failing([status(429, "30"), status(429, "7"), status(429)]);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(body.error.metadata.error_type).toBe("rate_limit_exceeded");
  });

  test("overloaded everywhere: 529", async () => {
    const { res, body } = await failing([status(529), status(529), status(529)]);
    expect(res.status).toBe(529);
    expect(body.error.metadata.error_type).toBe("provider_overloaded");
  });

  test("time-outs everywhere: 408", async () => {
    const { res, body } = await failing([{ kind: "hang" }, { kind: "hang" }, { kind: "hang" }]);
    expect(res.status).toBe(408);
    expect(body.error.metadata.error_type).toBe("timeout");
  });

  test("rate limits and a 5xx: 502 whether the 5xx came first or last (never the last endpoint's status)", async () => {
    for (const order of [
      [status(429), status(429), status(500)],
      [status(500), status(429), status(429)],
    ] as Array<[Fault, Fault, Fault]>) {
      const { res, body } = await failing(order);
      expect(res.status).toBe(502);
      expect(body.error.metadata.error_type).toBe("provider_unavailable");
    }
  });

  test("previous_errors keeps every attempt's provider, status and type (and the upstream's own status)", async () => {
    const { body } = await failing([status(503), status(429), { kind: "reset" }]);
    expect(body.error.metadata.previous_errors.map((e: Json) => [e.provider, e.status, e.error_type, e.provider_status])).toEqual([
      ["a", 502, "provider_unavailable", 503],
      ["b", 429, "rate_limit_exceeded", 429],
      ["c", 502, "provider_unavailable", undefined],
    ]);
  });
});
