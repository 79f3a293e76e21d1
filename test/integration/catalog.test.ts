/** `GET /models`: every configured model with its endpoints, pricing and context length; the simulator labelled. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    file: {
      simulator: true,
      providers: [
        { id: "p1", adapter: "openai", base_url: "http://127.0.0.1:1/v1", models: [{ id: "shared/m", upstream_model: "m1", pricing: { prompt: "0.000001", completion: 0.000002 }, context_length: 8192 }] },
        { id: "p2", adapter: "anthropic", base_url: "http://127.0.0.1:1/v1", models: [{ id: "shared/m", upstream_model: "m2", pricing: { prompt: 0.000003, completion: 0.000004, cache_read: 0.0000003 }, context_length: 200000, quantization: "fp8" }] },
      ],
    },
  });
});
afterAll(async () => gw.close());

type ModelView = { id: string; simulated: boolean; context_length: number | null; pricing: Record<string, string>; endpoints: Array<Record<string, unknown>> };

test("lists every model with its endpoints; no key needed", async () => {
  const res = await gw.request("/models", { key: null });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: ModelView[] };
  const ids = data.map((m) => m.id).sort();
  expect(ids).toEqual(["shared/m", "simulator/embedding", "simulator/image", "simulator/large", "simulator/rerank", "simulator/small"]);
  const shared = data.find((m) => m.id === "shared/m")!;
  expect(shared.simulated).toBe(false);
  expect(shared.endpoints.map((e) => e.provider)).toEqual(["p1", "p2"]);
  expect(shared.endpoints[0]).toMatchObject({ adapter: "openai", upstream_model: "m1", context_length: 8192, pricing: { prompt: "0.000001", completion: "0.000002" } });
  expect(shared.endpoints[1]).toMatchObject({ adapter: "anthropic", quantization: "fp8", pricing: { input_cache_read: "3e-7" } });
  const sim = data.find((m) => m.id === "simulator/small")!;
  expect(sim.simulated).toBe(true);
  expect(sim.endpoints[0]).toMatchObject({ provider: "simulator", simulated: true });
  expect(String((sim as unknown as { name: string }).name)).toContain("Simulator");
});
