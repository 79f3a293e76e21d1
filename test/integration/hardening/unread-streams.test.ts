/**
 * A client that starts a stream and never reads it.
 *
 * - It is ended by the write time-out (`server.stream_write_timeout_ms`): the upstream request is cancelled, the
 *   usage is recorded, and the key's credit hold is settled at once (it used to last the reservation's 15 minutes:
 *   keep-alive comments queued behind the pending write kept even Bun's idle time-out from firing).
 * - What one such stream holds in the gateway is bounded: a hundred never-read long streams leave the heap and
 *   `/health` as they were (they used to cost 3.5 MB each: the simulator built the whole answer up front).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSimulatorServer, type SimulatorServer } from "../../../providers/simulator/server.ts";
import { openStreamCount } from "../../../core/http/sse.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { headerOf, postAndStopReading, type UnreadClient } from "../../support/unread-client.ts";

type Json = Record<string, any>;

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

describe("a stream whose client never reads", () => {
  let upstream: SimulatorServer;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = startSimulatorServer();
    gw = await startTestGateway({
      file: {
        // Prompt tokens dear and output cheap: the reservation (prompt bytes × price) is far above what is spent.
        providers: [{ id: "sim", adapter: "openai", base_url: upstream.url, models: [{ id: "m/long", pricing: { prompt: 1e-4, completion: 1e-9 } }] }],
        server: { stream_write_timeout_ms: 500, keep_alive_ms: 200 },
      },
    });
  });

  afterAll(async () => {
    await gw.close();
    await upstream.stop();
  });

  test("is ended by the write time-out: upstream cancelled, usage recorded, credit hold settled", async () => {
    // One reservation (~0.042 USD) fits the limit, two do not; what the stream spends is far less.
    const created = (await (await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "unread", limit: 0.06 } })).json()) as { key: string };
    const prompt = `${"x".repeat(400)} [sim tokens=50000]`;
    const body = { model: "m/long", stream: true, max_tokens: 50_000, messages: [{ role: "user", content: prompt }] };
    let client: UnreadClient | undefined;
    try {
      client = await postAndStopReading(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${created.key}` });
      const head = await client.head;
      expect(head).toStartWith("HTTP/1.1 200");
      const id = headerOf(head, "x-generation-id")!;

      // While the stream is held open, its reservation stands: a second request of the same size is refused.
      const second = { ...body, stream: false, max_tokens: 50_000 };
      const during = await gw.request("/chat/completions", { key: created.key, method: "POST", json: second });
      expect(during.status).toBe(402);

      // The write time-out ends it: the upstream sees the cancellation, the generation is recorded…
      // Kernel buffers fill first (how long depends on the machine and its load), then the write time-out runs.
      await until(() => upstream.stats.cancelled === 1, "the upstream request to be cancelled", 20_000);
      await until(async () => (await gw.request(`/generation?id=${id}`, { key: created.key })).status === 200, "the generation record");
      const record = ((await (await gw.request(`/generation?id=${id}`, { key: created.key })).json()) as { data: Json }).data;
      expect(record.tokens_completion).toBeGreaterThan(0);
      expect(record.total_cost).toBeGreaterThan(0);
      expect(upstream.stats.completed).toBe(0);

      // …and the hold is settled: the same second request now fits.
      await until(async () => (await gw.request("/chat/completions", { key: created.key, method: "POST", json: { ...second, messages: [{ role: "user", content: `${"x".repeat(400)} [sim tokens=3]` }] } })).status === 200, "the hold to be released");
    } finally {
      client?.close();
    }
    // Longer than the 20 s the cancellation may take on a loaded machine (a full suite on two cores), plus the rest.
  }, 45_000);
});

describe("many streams nobody reads", () => {
  let gw: TestGateway;

  beforeAll(async () => {
    // The in-process simulator, and a write time-out longer than the test: the streams stay open while measured.
    gw = await startTestGateway({ file: { server: { stream_write_timeout_ms: 60_000 } } });
  });

  afterAll(() => gw.close());

  test("a hundred 40,000-token streams hold little memory and /health keeps answering", async () => {
    const body = { model: "simulator/small", stream: true, messages: [{ role: "user", content: "hi [sim tokens=40000]" }] };
    Bun.gc(true);
    const before = process.memoryUsage().heapUsed;
    const clients: UnreadClient[] = [];
    try {
      for (let i = 0; i < 100; i++) clients.push(await postAndStopReading(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${gw.inferenceKey}` }));
      await Promise.all(clients.map((c) => c.head));
      // Every stream is stuck behind its client (their kernel buffers full), none finished.
      await until(() => openStreamCount() >= 100, "the streams to be open");
      await Bun.sleep(500);
      const started = performance.now();
      expect((await fetch(`${gw.baseUrl}/health`)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(500);
      Bun.gc(true);
      const grown = (process.memoryUsage().heapUsed - before) / 1e6;
      expect(grown).toBeLessThan(60);
    } finally {
      for (const c of clients) c.close();
    }
  }, 30_000);
});
