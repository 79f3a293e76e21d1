/**
 * Chat-completions streams always carry the final usage, as OpenRouter's do. Without
 * `stream_options.include_usage` it rides on the chunk that carries the finish_reason (no extra empty-`choices`
 * chunk, which older clients index into); with it, the separate final `choices: []` chunk stays as before.
 * Through the official `openai` and `@openrouter/sdk` clients, against the simulator.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatChunks, sdkClient, type SdkRig } from "../../support/openrouter-sdk.ts";

let gw: TestGateway;
let client: OpenAI;
let rig: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway();
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  rig = sdkClient(gw, gw.inferenceKey);
});
afterAll(() => gw.close());

const model = "simulator/small";
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "hello there [sim tokens=6 reasoning=2]" }];
type WithCost = OpenAI.CompletionUsage & { cost?: number };

async function chunksOf(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<OpenAI.ChatCompletionChunk[]> {
  const out: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe("chat stream usage (openai SDK)", () => {
  test("without include_usage: the finish chunk carries the usage the non-streamed answer reports", async () => {
    const collected = await client.chat.completions.create({ model, messages });
    const chunks = await chunksOf(await client.chat.completions.create({ model, messages, stream: true }));
    // Every chunk has its one choice: nothing for an older client to trip on.
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    const finish = chunks.at(-1)!;
    expect(finish.choices[0]!.finish_reason).toBe("stop");
    const usage = finish.usage as WithCost | undefined;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBe(8);
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(2);
    expect(usage?.cost).toBeGreaterThan(0);
    expect(usage).toEqual(collected.usage as WithCost);
    // Only the last chunk has it.
    expect(chunks.filter((chunk) => chunk.usage)).toHaveLength(1);
  });

  test("with include_usage: unchanged, the usage comes in its own final chunk with empty choices", async () => {
    const chunks = await chunksOf(await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } }));
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBe(8);
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]!.finish_reason).toBe("stop");
    expect(finish.usage).toBeUndefined();
  });
});

describe("chat stream usage (@openrouter/sdk)", () => {
  test("chat.send streamed without stream options: the last chunk's usage is parsed by the SDK", async () => {
    const chunks = await chatChunks(rig.sdk, { model, messages: [{ role: "user", content: "hello there [sim tokens=6]" }] });
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finishReason).toBe("stop");
    expect(last.usage?.promptTokens).toBeGreaterThan(0);
    expect(last.usage?.completionTokens).toBe(6);
    expect(last.usage?.totalTokens).toBe((last.usage?.promptTokens ?? 0) + 6);
  });
});
