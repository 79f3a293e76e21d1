/**
 * A Responses reasoning item shows the reasoning once, as OpenAI's API does: as `reasoning_text` content, with
 * `summary` only when the request asked for one (`reasoning.summary`) — then the text stands in as the summary
 * instead of as content (the AI SDK reads only summaries). Codex, which asks for a summary, printed the words twice
 * when both carried them. And every chat `reasoning_details` entry carries its family in `format` (`unknown` when no
 * upstream named one) so the OpenRouter provider keeps the entries and sends them back; sent back, they decode as the
 * reasoning they were. Against the simulator, with the official `openai` and `@openrouter/sdk` clients and Codex's
 * own wire body. The per-adapter cells are in test/conformance/matrix-tools.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatRequest } from "@openrouter/sdk/models";
import OpenAI from "openai";
import codexRequest from "../../fixtures/clients/codex-responses-request.json";
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
const contentText = (item: OpenAI.Responses.ResponseReasoningItem | undefined) => item?.content?.map((c) => c.text).join("") ?? "";
const summaryText = (item: OpenAI.Responses.ResponseReasoningItem | undefined) => item?.summary.map((s) => s.text).join("") ?? "";

/** A stream's reasoning as the client hears it: the text deltas, the summary deltas, and the event types. */
async function streamed(body: Record<string, unknown>): Promise<{ text: string; summary: string; events: string[]; item: OpenAI.Responses.ResponseReasoningItem | undefined }> {
  const stream = openai.responses.stream({ model, input: THINK, ...body } as never);
  const seen = { text: "", summary: "", events: [] as string[] };
  stream.on("event", (event) => {
    seen.events.push(event.type);
    if (event.type === "response.reasoning_text.delta") seen.text += event.delta;
    if (event.type === "response.reasoning_summary_text.delta") seen.summary += event.delta;
  });
  const [item] = reasoningItems((await stream.finalResponse()).output);
  return { ...seen, item };
}

describe("Responses reasoning items (openai SDK)", () => {
  test("create(), no summary asked for: the text is content, the summary empty", async () => {
    const [item] = reasoningItems((await openai.responses.create({ model, input: THINK })).output);
    expect(contentText(item).split(" ")).toHaveLength(4);
    expect(item?.summary).toEqual([]);
  });

  test("create() with reasoning.summary: the text is the summary, and not content too", async () => {
    const [item] = reasoningItems((await openai.responses.create({ model, input: THINK, reasoning: { summary: "auto" } })).output);
    expect(summaryText(item).split(" ")).toHaveLength(4);
    expect(item?.summary).toHaveLength(1);
    expect(item?.content ?? []).toEqual([]);
  });

  test("stream(), no summary asked for: reasoning_text events only, no reasoning_summary_* event", async () => {
    const seen = await streamed({});
    expect(seen.text.split(" ")).toHaveLength(4);
    expect(seen.summary).toBe("");
    expect(seen.events.filter((type) => type.startsWith("response.reasoning_summary"))).toEqual([]);
    expect({ content: contentText(seen.item), summary: seen.item?.summary }).toEqual({ content: seen.text, summary: [] });
  });

  test("stream() with reasoning.summary: reasoning_summary_* events only, the words once", async () => {
    const seen = await streamed({ reasoning: { summary: "detailed" } });
    expect(seen.summary.split(" ")).toHaveLength(4);
    expect(seen.text).toBe("");
    expect(seen.events).toContain("response.reasoning_summary_part.added");
    expect(seen.events).toContain("response.reasoning_summary_part.done");
    expect(seen.events.filter((type) => type.startsWith("response.reasoning_text"))).toEqual([]);
    expect({ summary: seen.item?.summary, content: seen.item?.content ?? [] }).toEqual({ summary: [{ type: "summary_text", text: seen.summary }], content: [] });
  });

  test("the output sent back as the next turn's input is accepted, summary asked for or not", async () => {
    for (const reasoning of [undefined, { summary: "auto" as const }]) {
      const first = await openai.responses.create({ model, input: THINK, ...(reasoning ? { reasoning } : {}) });
      const input = [{ role: "user" as const, content: THINK }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: "user" as const, content: "And at sunset?" }];
      const second = await openai.responses.create({ model, input, ...(reasoning ? { reasoning } : {}) });
      expect(second.status).toBe("completed");
      expect(second.output_text).toStartWith("Simulated reply:");
    }
  });
});

describe("Codex's request (its wire body: reasoning.summary auto, streamed)", () => {
  /** Every `data:` payload of the raw stream. */
  async function frames(body: Record<string, unknown>): Promise<Array<Record<string, any>>> {
    const res = await gw.request("/responses", { method: "POST", json: body });
    expect(res.status).toBe(200);
    const text = await res.text();
    return text
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, any>);
  }

  test("the reasoning's words arrive once: as summary deltas, with no reasoning_text copy; the done item agrees", async () => {
    const events = await frames(codexRequest);
    const summary = events.filter((e) => e.type === "response.reasoning_summary_text.delta").map((e) => e.delta as string).join("");
    const text = events.filter((e) => e.type === "response.reasoning_text.delta").map((e) => e.delta as string).join("");
    expect(summary.split(" ")).toHaveLength(4);
    expect(text).toBe("");
    const done = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning")!.item;
    expect(done.summary).toEqual([{ type: "summary_text", text: summary }]);
    expect(done.content).toBeUndefined();
  });

  test("the same body without reasoning (what Codex sends for a model it knows no summaries of): text only, once", async () => {
    const { reasoning: _, include: __, ...plain } = codexRequest;
    const events = await frames(plain);
    const text = events.filter((e) => e.type === "response.reasoning_text.delta").map((e) => e.delta as string).join("");
    expect(text.split(" ")).toHaveLength(4);
    expect(events.filter((e) => String(e.type).startsWith("response.reasoning_summary"))).toEqual([]);
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
