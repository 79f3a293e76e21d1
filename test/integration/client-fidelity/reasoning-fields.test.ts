/**
 * Issue 17 item 11: a Responses reasoning item always fills `summary` (the AI SDK reads only that: reasoning text
 * with no summary of its own stands in for it, streamed too), and every chat `reasoning_details` entry carries its
 * family in `format` (`unknown` when no upstream named one) so the OpenRouter provider keeps the entries and sends
 * them back; sent back, they decode as the reasoning they were. Against the simulator, with the official `openai`
 * and `@openrouter/sdk` clients. The per-adapter cells are in test/conformance/matrix-tools.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatRequest } from "@openrouter/sdk/models";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatChunks, chatOnce, sdkClient, type SdkRig } from "../../support/openrouter-sdk.ts";

let gw: TestGateway;
let openai: OpenAI;
let rig: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway();
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  rig = sdkClient(gw, gw.inferenceKey);
});
afterAll(() => gw.close());

const model = "simulator/small";
const THINK = "Why is the sky blue? [sim reasoning=4 tokens=3]";

function reasoningItems(output: OpenAI.Responses.ResponseOutputItem[]): OpenAI.Responses.ResponseReasoningItem[] {
  return output.filter((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === "reasoning");
}

describe("Responses reasoning summary (openai SDK)", () => {
  test("create(): the reasoning text is the item's summary too", async () => {
    const response = await openai.responses.create({ model, input: THINK });
    const [item] = reasoningItems(response.output);
    const text = item?.content?.map((c) => c.text).join("") ?? "";
    expect(text.split(" ")).toHaveLength(4);
    expect(item?.summary).toEqual([{ type: "summary_text", text }]);
  });

  test("stream(): summary part and text events carry the same text, and the final item has it", async () => {
    const stream = openai.responses.stream({ model, input: THINK });
    let deltas = "";
    const events: string[] = [];
    stream.on("event", (event) => {
      events.push(event.type);
      if (event.type === "response.reasoning_summary_text.delta") deltas += event.delta;
    });
    const final = await stream.finalResponse();
    const [item] = reasoningItems(final.output);
    expect(events).toContain("response.reasoning_summary_part.added");
    expect(events).toContain("response.reasoning_summary_part.done");
    expect(events).toContain("response.reasoning_summary_text.done");
    expect(deltas.split(" ")).toHaveLength(4);
    expect(item?.summary).toEqual([{ type: "summary_text", text: deltas }]);
  });

  test("the output sent back as the next turn's input is accepted (the summary copy is dropped again: matrix-tools cells)", async () => {
    const first = await openai.responses.create({ model, input: THINK });
    const input = [{ role: "user" as const, content: THINK }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: "user" as const, content: "And at sunset?" }];
    const second = await openai.responses.create({ model, input });
    expect(second.status).toBe("completed");
    expect(second.output_text).toStartWith("Simulated reply:");
  });
});

/** Not every variant of the SDK's detail union declares `format`; the text and summary ones do. */
const formatOf = (detail: object): unknown => (detail as { format?: unknown }).format;

describe("chat reasoning_details format (@openrouter/sdk)", () => {
  const user = { role: "user" as const, content: THINK };

  test("not streamed: every entry carries a format; sent back, the next turn decodes it", async () => {
    const first = await chatOnce(rig.sdk, { model, messages: [user] });
    const details = first.choices[0]!.message.reasoningDetails ?? [];
    expect(details.length).toBeGreaterThan(0);
    expect(details.map(formatOf)).toEqual(details.map(() => "unknown"));
    const message = first.choices[0]!.message;
    const next: ChatRequest["messages"] = [user, { role: "assistant", content: message.content ?? "", reasoningDetails: details }, { role: "user", content: "And at sunset?" }];
    const second = await chatOnce(rig.sdk, { model, messages: next });
    expect(second.choices[0]!.finishReason).toBe("stop");
    // Decoded as the same reasoning text: the same prompt count as sending the plain `reasoning` string.
    const plain = await chatOnce(rig.sdk, { model, messages: [user, { role: "assistant", content: message.content ?? "", reasoning: message.reasoning ?? "" }, { role: "user", content: "And at sunset?" }] });
    expect(second.usage?.promptTokens).toBe(plain.usage?.promptTokens);
  });

  test("streamed: every reasoning_details delta carries a format", async () => {
    const chunks = await chatChunks(rig.sdk, { model, messages: [user] });
    const details = chunks.flatMap((c) => c.choices[0]?.delta.reasoningDetails ?? []);
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((d) => formatOf(d) === "unknown")).toBe(true);
  });
});
