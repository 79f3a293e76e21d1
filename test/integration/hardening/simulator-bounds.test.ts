/**
 * The default install runs on the simulator, so it must behave like a real upstream
 * — its inputs are capped with a 400 (`[sim tokens=999999]` overflowed the stack: a 500), and a heavy load is
 * answered in slices that let the event loop turn (a 10,000-item batch froze `/health` for 12 s).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSimulatorServer, type SimulatorServer } from "../../../providers/simulator/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

let gw: TestGateway;
let standalone: SimulatorServer;

beforeAll(async () => {
  gw = await startTestGateway();
  standalone = startSimulatorServer();
});

afterAll(async () => {
  await gw.close();
  await standalone.stop();
});

const chat = (content: string) => gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content }] } });

describe("directive caps", () => {
  for (const directive of ["[sim tokens=999999]", "[sim reasoning=100001]", "[sim latency=99999999999999999999]", "[sim delay=60001]"]) {
    test(`${directive}: a 400 naming the cap, at once`, async () => {
      const started = performance.now();
      const res = await chat(`hello ${directive}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toContain("must be at most");
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  }

  test("the standalone simulator server caps alike", async () => {
    const res = await fetch(`${standalone.url}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "s", messages: [{ role: "user", content: "[sim tokens=999999]" }] }) });
    expect(res.status).toBe(400);
  });

  test("at the cap it answers, in full", async () => {
    const res = await chat("hello [sim tokens=100000]");
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).usage.completion_tokens).toBe(100_000);
  });
});

describe("a heavy load lets other requests in", () => {
  test("a 3,000-item batch on the simulator: /health keeps answering while it runs", async () => {
    const requests = Array.from({ length: 3_000 }, (_, i) => ({ custom_id: `r${i}`, body: { model: "simulator/small", messages: [{ role: "user", content: `question ${i}` }] } }));
    // A probe every 20 ms, counting the answers that came while the batch was still running. How long the event
    // loop was held at worst is a timing, measured by `npm run bench:stall`, not asserted here (it varies with load).
    let answeredDuringRun = 0;
    let running = true;
    const probe = (async () => {
      while (running) {
        const health = await fetch(`${gw.baseUrl}/health`);
        if (health.status === 200 && running) answeredDuringRun++;
        await Bun.sleep(20);
      }
    })();
    try {
      const submitted = await gw.request("/batches", { method: "POST", json: { endpoint: "/chat/completions", requests } });
      expect(submitted.status).toBe(202);
      const id = ((await submitted.json()) as Json).id as string;
      let answeredBeforeEnd = 0;
      for (let i = 0; i < 600; i++) {
        const batch = (await (await gw.request(`/batches/${id}`)).json()) as Json;
        if (batch.status === "completed") break;
        answeredBeforeEnd = answeredDuringRun;
        await Bun.sleep(100);
      }
      // Health answers came in while the batch was still in progress, not only once it was done.
      expect(answeredBeforeEnd).toBeGreaterThan(0);
      expect(((await (await gw.request(`/batches/${id}`)).json()) as Json).request_counts).toMatchObject({ completed: 3_000 });
    } finally {
      running = false;
      await probe;
    }
  }, 120_000);
});
