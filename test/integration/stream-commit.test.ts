/**
 * A stream waits for its first output with a normal error status and fallbacks, but only up to keep_alive_ms; after
 * that the client gets headers and keep-alives while the gateway keeps trying, and a final failure arrives in-band.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSimulatorServer } from "../../providers/simulator/server.ts";
import { startFaultUpstream, type FaultUpstream } from "../support/fault-upstream.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let upstream: ReturnType<typeof startSimulatorServer>;
let hanging: FaultUpstream;

beforeAll(async () => {
  upstream = startSimulatorServer({ port: 0, hostname: "127.0.0.1", record: true });
  hanging = startFaultUpstream("hanging");
  hanging.fallback = { kind: "hang" };
  const model = (id: string) => ({ id, upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 } });
  gw = await startTestGateway({
    file: {
      server: { keep_alive_ms: 100 },
      providers: [
        { id: "one", adapter: "openai", base_url: upstream.url, models: [model("acme/solo")] },
        { id: "stuck", adapter: "openai", base_url: hanging.url, models: [model("acme/primary")] },
        { id: "two", adapter: "openai", base_url: upstream.url, models: [model("acme/backup")] },
      ],
    },
    configure: (config) => {
      // One attempt per endpoint and no breaker memory between tests: each test sees exactly its own attempts.
      const routing = (config as unknown as { routing?: Record<string, unknown> }).routing;
      // A short first-byte timeout so a hanging upstream fails over quickly (but well after the 100 ms commit point).
      if (routing) Object.assign(routing, { maxRetries: 0, firstByteTimeoutMs: 400, breaker: { failureThreshold: 1000, failureWindowMs: 1, cooldownMs: 1 } });
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  hanging.stop();
});

const stream = (model: string, content: string, extra: Record<string, unknown> = {}) =>
  gw.request("/chat/completions", { method: "POST", json: { model, stream: true, messages: [{ role: "user", content }], ...extra } });

describe("stream commit point", () => {
  test("a fast failure before any output keeps its HTTP status and envelope", async () => {
    const res = await stream("acme/solo", "[sim status=529]");
    expect(res.status).toBe(529);
    expect(((await res.json()) as { error: { metadata: { error_type: string } } }).error.metadata.error_type).toBe("provider_overloaded");
  });

  test("a slow failure arrives in-band after keep-alives, with error_type, then [DONE]", async () => {
    const res = await stream("acme/solo", "[sim latency=350 status=529]");
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).toContain(": SERVICE PROCESSING");
    const frames = raw.split("\n\n").filter((f) => f.startsWith("data: "));
    expect(frames.at(-1)).toBe("data: [DONE]");
    const error = JSON.parse(frames.at(-2)!.slice(6)) as { error: { metadata: { error_type: string } }; choices: Array<{ finish_reason: string }> };
    expect(error.error.metadata.error_type).toBe("provider_overloaded");
    expect(error.choices[0]!.finish_reason).toBe("error");
  });

  test("after the commit point, a fallback model still answers (no content had been sent)", async () => {
    const res = await stream("acme/primary", "hello", { models: ["acme/backup"] });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).toContain(": SERVICE PROCESSING");
    expect(raw).toContain("data: [DONE]");
    expect(raw).not.toContain('"error"');
    const chunks = raw.split("\n\n").filter((f) => f.startsWith("data: {")).map((f) => JSON.parse(f.slice(6)) as { model: string; provider: string });
    expect(chunks[0]!.model).toBe("acme/backup");
    expect(chunks[0]!.provider).toBe("two");
    expect(hanging.requests.length).toBe(1);
  });
});
