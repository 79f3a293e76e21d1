/** One log line per request with id, key hash prefix, model, provider, status, latency, tokens, cost — no secrets. */
import { expect, test } from "bun:test";
import pino from "pino";
import { Writable } from "node:stream";
import { startTestGateway } from "../support/gateway.ts";

test("request log lines carry the facts and redact secrets", async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const gw = await startTestGateway({ overrides: { logger: pino({ level: "info" }, sink) } });
  try {
    const res = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", messages: [{ role: "user", content: "log me" }] } });
    const body = (await res.json()) as { id: string; usage: { prompt_tokens: number; completion_tokens: number; cost: number } };
    const stream = await gw.request("/chat/completions", { method: "POST", json: { model: "simulator/small", stream: true, messages: [{ role: "user", content: "log me too" }] } });
    await stream.text();
    await Bun.sleep(20);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.msg === "request");
    const plain = entries.find((e) => e.id === body.id);
    expect(plain).toMatchObject({
      key: gw.inferenceKeyHash.slice(0, 8),
      model: "simulator/small",
      provider: "simulator",
      status: 200,
      tokens_in: body.usage.prompt_tokens,
      tokens_out: body.usage.completion_tokens,
      cost: body.usage.cost,
    });
    expect(typeof plain!.latency_ms).toBe("number");
    expect(entries.some((e) => e.id === stream.headers.get("x-generation-id") && e.stream === true)).toBe(true);
    expect(lines.join("\n")).not.toContain(gw.inferenceKey);
  } finally {
    await gw.close();
  }
});
