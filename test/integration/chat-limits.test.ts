/** Every chat-completions limit of the spec, at its boundary (accepted) and one past it (400 with the envelope). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

const base = { model: "simulator/small", messages: [{ role: "user", content: "hi" }] };
const metadataOf = (pairs: number, keyLength = 4, valueLength = 4) =>
  Object.fromEntries(Array.from({ length: pairs }, (_, i) => [`${i}`.padStart(keyLength, "k"), "v".repeat(valueLength)]));

const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ["temperature", { temperature: 2 }, { temperature: 2.01 }],
  ["temperature below 0", { temperature: 0 }, { temperature: -0.01 }],
  ["top_p", { top_p: 1 }, { top_p: 1.01 }],
  ["frequency_penalty", { frequency_penalty: -2 }, { frequency_penalty: -2.01 }],
  ["presence_penalty", { presence_penalty: 2 }, { presence_penalty: 2.01 }],
  ["top_logprobs", { top_logprobs: 20, logprobs: true }, { top_logprobs: 21, logprobs: true }],
  ["stop", { stop: ["a", "b", "c", "d"] }, { stop: ["a", "b", "c", "d", "e"] }],
  ["metadata pairs", { metadata: metadataOf(16) }, { metadata: metadataOf(17) }],
  ["metadata key length", { metadata: metadataOf(1, 64) }, { metadata: metadataOf(1, 65) }],
  ["metadata value length", { metadata: metadataOf(1, 4, 512) }, { metadata: metadataOf(1, 4, 513) }],
  ["metadata key brackets", { metadata: { "a-b": "x" } }, { metadata: { "a[b]": "x" } }],
  ["session_id", { session_id: "s".repeat(256) }, { session_id: "s".repeat(257) }],
  ["user", { user: "u".repeat(256) }, { user: "u".repeat(257) }],
  ["reasoning_effort vs reasoning.effort", { reasoning_effort: "low", reasoning: { effort: "low" } }, { reasoning_effort: "low", reasoning: { effort: "high" } }],
  ["wrong enum", { service_tier: "fast" }, { service_tier: "warp" }],
  ["wrong type", { max_tokens: 16 }, { max_tokens: "sixteen" }],
  ["max_tokens at least 1", { max_tokens: 1 }, { max_tokens: 0 }],
  ["max_tokens not negative", { max_tokens: 1 }, { max_tokens: -1_000_000_000 }],
  ["max_completion_tokens at least 1", { max_completion_tokens: 1 }, { max_completion_tokens: 0 }],
];

describe("limits", () => {
  for (const [name, ok, bad] of cases) {
    test(`${name}: boundary accepted, one past rejected`, async () => {
      const accepted = await gw.request("/chat/completions", { method: "POST", json: { ...base, ...ok } });
      expect(accepted.status).toBe(200);
      const rejected = await gw.request("/chat/completions", { method: "POST", json: { ...base, ...bad } });
      expect(rejected.status).toBe(400);
      const body = (await rejected.json()) as { error: { code: number; message: string; metadata: { error_type: string } } };
      expect(body.error.code).toBe(400);
      expect(body.error.metadata.error_type).toBe("invalid_request");
      expect(body.error.message.length).toBeGreaterThan(10);
    });
  }

  test("messages must hold at least one item", async () => {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("messages");
  });
});
