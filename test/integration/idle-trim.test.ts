/**
 * Giving memory back after idleness (core/ops/idle-trim.ts) through a real gateway: the trim happens once traffic
 * stops, never while a stream is open, and the gateway answers exactly as before it (the trim drops compiled code).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatItem, submit, waitForBatch } from "../unit/batches/http-support.ts";

const IDLE_MS = 150;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ file: { server: { idle_trim_ms: IDLE_MS } } });
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
});

async function answer(): Promise<{ text: string; streamed: string; tokens: number | undefined }> {
  const completion = await client.chat.completions.create({ model: "simulator/small", messages: [{ role: "user", content: "idle trim [sim tokens=12]" }] });
  let streamed = "";
  const stream = await client.chat.completions.create({ model: "simulator/small", stream: true, messages: [{ role: "user", content: "idle trim [sim tokens=12]" }] });
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? "";
  return { text: completion.choices[0]?.message.content ?? "", streamed, tokens: completion.usage?.completion_tokens };
}

async function waitForTrims(count: number, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (gw.gateway.idleTrimmer.trims < count && performance.now() < deadline) await Bun.sleep(20);
}

describe("idle trim (server.idle_trim_ms)", () => {
  test("after traffic stops memory is given back, and requests are answered exactly as before", async () => {
    const before = await answer();
    expect(before.text.length).toBeGreaterThan(0);
    const trims = gw.gateway.idleTrimmer.trims;
    await waitForTrims(trims + 1, IDLE_MS * 10);
    expect(gw.gateway.idleTrimmer.trims).toBe(trims + 1);
    expect(await answer()).toEqual(before);
  });

  test("no trim while a stream is open, even a long quiet one", async () => {
    await waitForTrims(gw.gateway.idleTrimmer.trims + 1, IDLE_MS * 10); // start from a trimmed, quiet gateway
    const trims = gw.gateway.idleTrimmer.trims;
    // One request, then a stream that stays open (quiet between chunks) for several idle periods.
    const stream = await client.chat.completions.create({
      model: "simulator/small",
      stream: true,
      messages: [{ role: "user", content: `slow [sim tokens=8 delay=${IDLE_MS}]` }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(gw.gateway.idleTrimmer.trims).toBe(trims);
    // Once it has ended and the gateway is quiet again, the next trim comes.
    await waitForTrims(trims + 1, IDLE_MS * 10);
    expect(gw.gateway.idleTrimmer.trims).toBe(trims + 1);
  });

  test("no trim while batch items run (they make no HTTP requests)", async () => {
    await waitForTrims(gw.gateway.idleTrimmer.trims + 1, IDLE_MS * 10);
    const trims = gw.gateway.idleTrimmer.trims;
    // Two items that each take ten idle periods upstream; meanwhile no HTTP request reaches the gateway.
    const batch = await submit(gw, {
      endpoint: "/chat/completions",
      model: "simulator/small",
      requests: [chatItem("a", `slow-a [sim tokens=3 latency=${IDLE_MS * 10}]`), chatItem("b", `slow-b [sim tokens=3 latency=${IDLE_MS * 10}]`)],
    });
    await Bun.sleep(IDLE_MS * 6);
    expect(gw.gateway.idleTrimmer.trims).toBe(trims);
    const { batch: done } = await waitForBatch(gw, batch.id, (b) => b.status === "completed" || b.status === "failed");
    expect(done.status).toBe("completed");
    expect(gw.gateway.idleTrimmer.trims).toBe(trims);
  });
});
