/**
 * What a client sends is echoed and stored in bounded size: a 10 MB `model` came back whole in
 * the 400 (message and metadata) and was written whole to the generations table. Model ids are capped at 256
 * characters by every format's schema; any client string an error repeats is clipped to ~256 characters and "…".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

const LONG = "m".repeat(1_000_000);
const BODIES: Record<string, (model: string) => unknown> = {
  "/chat/completions": (model) => ({ model, messages: [{ role: "user", content: "hi" }] }),
  "/messages": (model) => ({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
  "/responses": (model) => ({ model, input: "hi" }),
};

describe("a 1 MB model name", () => {
  for (const [path, body] of Object.entries(BODIES)) {
    test(`${path}: a small 400 naming the field, and nothing long stored`, async () => {
      const res = await gw.request(path, { method: "POST", json: body(LONG) });
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(text.length).toBeLessThan(2000);
      expect(text).not.toContain("m".repeat(257));
      expect((JSON.parse(text) as { error: { metadata: { param?: string } } }).error.metadata.param).toBe("model");
      const generation = await gw.request(`/generation?id=${res.headers.get("x-generation-id")}`);
      if (generation.status === 200) {
        const record = (await generation.json()) as { data: { model: string } };
        expect(record.data.model.length).toBeLessThanOrEqual(257);
      } else {
        expect(generation.status).toBe(404);
      }
    });
  }

  test("256 characters is still a model name (unknown here): its 400 echoes it whole", async () => {
    const model = "v/" + "m".repeat(254);
    const res = await gw.request("/chat/completions", { method: "POST", json: BODIES["/chat/completions"]!(model) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(model);
  });
});

test("any other client string an error repeats is clipped: 258 characters in a row at most (a value and its quotes), then an ellipsis", async () => {
  const id = "p".repeat(100_000);
  const res = await gw.request("/chat/completions", {
    method: "POST",
    json: { model: "simulator/small", messages: [{ role: "user", content: "hi" }], plugins: [{ id }] },
  });
  const text = await res.text();
  expect(res.status).toBe(400);
  expect(text.length).toBeLessThan(2500);
  const envelope = JSON.parse(text) as { error: { message: string; metadata: Record<string, unknown> } };
  // The value is clipped with the quote before it: 258 characters in a row at most, then "…".
  expect(envelope.error.message).toContain(`"${"p".repeat(257)}…`);
  expect(JSON.stringify(envelope.error.metadata)).not.toContain("p".repeat(257));
});
