/**
 * `message_start` on a Messages stream carries the prompt token count when the upstream knows it
 * before the first token (the simulator counts it up front; Gemini and Anthropic report it early — those are cells of
 * test/conformance/messages-stream.test.ts). LangChain's ChatAnthropic reads input tokens only there. Through the
 * official `@anthropic-ai/sdk`, against the simulator.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

let gw: TestGateway;
let client: Anthropic;
beforeAll(async () => {
  gw = await startTestGateway();
  client = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => gw.close());

const request = {
  model: "simulator/small",
  max_tokens: 64,
  system: "You are terse.",
  messages: [{ role: "user" as const, content: "Tell me something [sim tokens=5]" }],
};

describe("message_start usage (@anthropic-ai/sdk)", () => {
  test("messages.stream(): message_start's input_tokens is the prompt count, equal to the final one", async () => {
    const stream = client.messages.stream(request);
    let startUsage: Anthropic.Usage | undefined;
    stream.on("streamEvent", (event) => {
      // Copied: the SDK keeps that message as its snapshot and updates its usage in place later.
      if (event.type === "message_start") startUsage = { ...event.message.usage };
    });
    const final = await stream.finalMessage();
    expect(startUsage?.input_tokens).toBeGreaterThan(0);
    expect(startUsage?.input_tokens).toBe(final.usage.input_tokens);
    expect(startUsage?.output_tokens).toBe(0);
    expect(final.usage.output_tokens).toBe(5);
    // The same count as the non-streamed answer.
    const collected = await client.messages.create(request);
    expect(collected.usage.input_tokens).toBe(final.usage.input_tokens);
  });

  test("create({stream: true}): the first event is message_start with the input tokens", async () => {
    const events = await client.messages.create({ ...request, stream: true });
    let first: Anthropic.RawMessageStreamEvent | undefined;
    let delta: Anthropic.RawMessageDeltaEvent | undefined;
    for await (const event of events) {
      first ??= event;
      if (event.type === "message_delta") delta = event;
    }
    expect(first?.type).toBe("message_start");
    const input = first?.type === "message_start" ? first.message.usage.input_tokens : 0;
    expect(input).toBeGreaterThan(0);
    expect(delta?.usage.input_tokens).toBe(input);
  });
});
