/**
 * The official `@anthropic-ai/sdk` against the gateway (`baseURL` = origin + `/api`) over EACH upstream adapter:
 * `messages.create`, `messages.stream()` + `finalMessage()`, a tool-use round trip that also carries the thinking
 * signature back, and the SDK's view of errors (before the stream, and in-band after it started).
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ADAPTERS, fixture, httpErrorReply, midStreamErrorReply, replyOf, wireFamily } from "../support/fake-upstream/fixtures.ts";
import { QUESTION, TOOL_OUTPUT, upstreamCall, WEATHER_QUESTION } from "./support/matrix.ts";
import { expectedCost, MODEL, PROVIDER, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
let client: Anthropic;
beforeAll(async () => {
  c = await startConformance();
  client = new Anthropic({ baseURL: `${c.gw.origin}/api`, apiKey: c.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

const tools: Anthropic.Tool[] = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    input_schema: { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } }, required: ["city"] },
  },
];

/** The gateway adds `cost` to Anthropic's usage object. */
type UsageWithCost = Anthropic.Usage & { cost?: number };

for (const adapter of ADAPTERS) {
  describe(`@anthropic-ai/sdk → ${adapter}`, () => {
    const model = MODEL[adapter];
    const text = fixture(adapter, "text").expect;

    test("messages.create: text, stop reason, usage with cost, provider", async () => {
      c.fake.enqueue(replyOf(adapter, "text", false));
      const message = await client.messages.create({ model, max_tokens: 256, system: "Be terse.", messages: [{ role: "user", content: QUESTION }] });
      expect(message.type).toBe("message");
      expect(message.role).toBe("assistant");
      expect(message.model).toBe(model);
      expect(message.content).toEqual([{ type: "text", text: text.text as string, citations: null }]);
      expect(message.stop_reason).toBe("end_turn");
      const usage = message.usage as UsageWithCost;
      const cached = usage.cache_read_input_tokens ?? 0;
      const written = usage.cache_creation_input_tokens ?? 0;
      expect(usage.input_tokens + cached + written).toBe(text.usage?.input as number);
      expect(cached).toBe(text.usage?.cacheRead as number);
      expect(usage.output_tokens).toBe(text.usage?.output as number);
      expect(usage.cost).toBeCloseTo(expectedCost(text.usage!), 12);
      expect((message as unknown as { provider: string }).provider).toBe(PROVIDER[adapter]);
      const view = upstreamCall(c.fake, adapter, false);
      expect(view.system).toBe("Be terse.");
      expect(view.maxTokens).toBe(256);
    });

    test("messages.stream() + finalMessage(): text events, final message, usage with cost", async () => {
      c.fake.enqueue(replyOf(adapter, "text", true));
      const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: QUESTION }] });
      const deltas: string[] = [];
      stream.on("text", (delta) => deltas.push(delta));
      let finalCost: unknown;
      stream.on("streamEvent", (event) => {
        if (event.type === "message_delta") finalCost = (event.usage as Anthropic.MessageDeltaUsage & { cost?: number }).cost;
      });
      const message = await stream.finalMessage();
      expect(deltas.join("")).toBe(text.text as string);
      expect(message.content as unknown[]).toEqual([{ type: "text", text: text.text as string, citations: null }]);
      expect(message.stop_reason).toBe("end_turn");
      expect(message.model).toBe(model);
      const usage = message.usage as UsageWithCost;
      expect(usage.output_tokens).toBe(text.usage?.output as number);
      expect(usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)).toBe(text.usage?.input as number);
      // The final cost travels in message_delta.usage.cost (cumulative, like Anthropic's own counters). The SDK's
      // MessageStream copies only the counters it knows from message_delta into its snapshot, so finalMessage()
      // cannot show it; `streamEvent` listeners (and raw-event readers) get it.
      expect(finalCost).toBeCloseTo(expectedCost(text.usage!), 12);
      upstreamCall(c.fake, adapter, true);
    });

    for (const streamed of [false, true]) {
      test(`tool-use round trip (${streamed ? "stream + finalMessage" : "create"}): thinking signature, call id and input travel back`, async () => {
        const thinking = fixture(adapter, "thinking").expect;
        c.fake.enqueue(replyOf(adapter, "thinking", streamed));
        const params: Anthropic.MessageCreateParamsNonStreaming = { model, max_tokens: 2048, tools, messages: [{ role: "user", content: WEATHER_QUESTION }] };
        const first = streamed ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
        expect(first.stop_reason).toBe("tool_use");
        const thought = first.content.find((b): b is Anthropic.ThinkingBlock => b.type === "thinking");
        expect(thought?.thinking).toBe(thinking.reasoning as string);
        // Reasoning that carries state (a signature, encrypted content) shows it; plain reasoning text has none.
        if (thinking.carry !== undefined) expect(thought?.signature.length).toBeGreaterThan(10);
        const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
        expect(call?.id).toBe(thinking.toolCalls?.[0]?.id as string);
        expect(call?.input).toEqual({ city: "Paris", unit: "celsius" });

        c.fake.enqueue(replyOf(adapter, "text", streamed));
        const next: Anthropic.MessageCreateParamsNonStreaming = {
          ...params,
          messages: [
            { role: "user", content: WEATHER_QUESTION },
            { role: "assistant", content: first.content },
            { role: "user", content: [{ type: "tool_result", tool_use_id: call?.id as string, content: TOOL_OUTPUT }] },
          ],
        };
        const second = streamed ? await client.messages.stream(next).finalMessage() : await client.messages.create(next);
        expect(second.content as unknown[]).toEqual([{ type: "text", text: text.text as string, citations: null }]);
        const view = upstreamCall(c.fake, adapter, streamed);
        const sentCall = view.items.find((i) => i.kind === "call");
        expect(sentCall).toMatchObject({ name: "get_weather", args: { city: "Paris", unit: "celsius" } });
        if (wireFamily(adapter) !== "gemini") expect(view.items.find((i) => i.kind === "result")).toMatchObject({ id: call?.id, content: TOOL_OUTPUT });
        const carry = thinking.carry ?? {};
        const reasoning = view.items.find((i) => i.kind === "reasoning");
        if (carry.signature !== undefined) expect(reasoning).toMatchObject({ signature: carry.signature });
        if (carry.encrypted !== undefined) expect(reasoning).toMatchObject({ encrypted: carry.encrypted, id: carry.id });
      });
    }

    test("errors: a 429 before the stream is the SDK's RateLimitError; an in-band error rejects finalMessage()", async () => {
      c.fake.enqueue(httpErrorReply(adapter, false));
      const failed = await client.messages.create({ model, max_tokens: 64, messages: [{ role: "user", content: QUESTION }] }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Anthropic.RateLimitError);
      expect((failed as InstanceType<typeof Anthropic.RateLimitError>).status).toBe(429);

      c.fake.enqueue(midStreamErrorReply(adapter));
      const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: "user", content: QUESTION }] });
      const deltas: string[] = [];
      stream.on("text", (delta) => deltas.push(delta));
      const broken = await stream.finalMessage().catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(Anthropic.APIError);
      const body = (broken as InstanceType<typeof Anthropic.APIError>).error as { type: string; error: { type: string; error_type: string } };
      expect(body.type).toBe("error");
      expect(body.error.error_type).toBe(fixture(adapter, "error").expect.streamErrorType as string);
      expect(deltas.join("")).toBe(fixture(adapter, "error").expect.partialText as string);
    });
  });
}
