/** Anthropic clients accept `ping` keep-alives sent before `message_start` while the upstream is slow to answer. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway({ file: { server: { keep_alive_ms: 100 } } })));
afterAll(async () => gw.close());

test("messages.stream() completes after pings that precede message_start", async () => {
  const raw = await (
    await gw.request("/messages", { method: "POST", json: { model: "simulator/small", max_tokens: 50, stream: true, messages: [{ role: "user", content: "hi [sim latency=350]" }] } })
  ).text();
  const events = [...raw.matchAll(/^event: (\S+)/gm)].map((m) => m[1]);
  expect(events.indexOf("ping")).toBeGreaterThanOrEqual(0);
  expect(events.indexOf("ping")).toBeLessThan(events.indexOf("message_start"));

  const client = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
  const message = await client.messages.stream({ model: "simulator/small", max_tokens: 50, messages: [{ role: "user", content: "hi [sim latency=350]" }] }).finalMessage();
  expect(message.stop_reason).toBe("end_turn");
  expect(message.content[0]!.type).toBe("text");
});
