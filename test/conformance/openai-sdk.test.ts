/**
 * The official `openai` client against the gateway over EACH upstream adapter: chat completions (create, stream
 * helper with tool-call accumulation, tool round trip) and Responses (create, stream helper + finalResponse, tool
 * round trip carrying reasoning back), and the SDK's view of errors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ADAPTERS, fixture, httpErrorReply, midStreamErrorReply, replyOf } from "../support/fake-upstream/fixtures.ts";
import { QUESTION, TOOL_OUTPUT, upstreamCall, WEATHER_QUESTION } from "./support/matrix.ts";
import { expectedCost, MODEL, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
let client: OpenAI;
beforeAll(async () => {
  c = await startConformance();
  client = new OpenAI({ baseURL: c.gw.baseUrl, apiKey: c.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

const parameters = { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } }, required: ["city"] };
const chatTools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", description: "Current weather", parameters } }];
const responseTools: OpenAI.Responses.Tool[] = [{ type: "function", name: "get_weather", description: "Current weather", parameters, strict: false }];
type WithCost<T> = T & { cost?: number };

for (const adapter of ADAPTERS) {
  describe(`openai SDK → ${adapter}`, () => {
    const model = MODEL[adapter];
    const text = fixture(adapter, "text").expect;
    const thinking = fixture(adapter, "thinking").expect;

    test("chat.completions.create and stream (include_usage): text, finish, usage with cost", async () => {
      c.fake.enqueue(replyOf(adapter, "text", false), replyOf(adapter, "text", true));
      const completion = await client.chat.completions.create({ model, messages: [{ role: "user", content: QUESTION }] });
      expect(completion.choices[0]?.message.content).toBe(text.text as string);
      expect(completion.choices[0]?.finish_reason).toBe("stop");
      expect((completion.usage as WithCost<OpenAI.CompletionUsage>).cost).toBeCloseTo(expectedCost(text.usage!), 12);
      upstreamCall(c.fake, adapter, false, c.fake.requests[0]);

      const stream = await client.chat.completions.create({ model, messages: [{ role: "user", content: QUESTION }], stream: true, stream_options: { include_usage: true } });
      let streamed = "";
      let usage: WithCost<OpenAI.CompletionUsage> | undefined;
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? "";
        if (chunk.usage) usage = chunk.usage;
      }
      expect(streamed).toBe(text.text as string);
      expect(usage?.prompt_tokens_details?.cached_tokens).toBe(text.usage?.cacheRead as number);
      expect(usage?.cost).toBeCloseTo(expectedCost(text.usage!), 12);
      upstreamCall(c.fake, adapter, true, c.fake.requests[1]);
    });

    test("chat tool round trip (stream helper): accumulated call, reasoning_details and result travel back", async () => {
      c.fake.enqueue(replyOf(adapter, "thinking", true));
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: WEATHER_QUESTION }];
      const first = await client.chat.completions.stream({ model, messages, tools: chatTools }).finalChatCompletion();
      const message = first.choices[0]?.message;
      const call = message?.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall | undefined;
      expect(first.choices[0]?.finish_reason).toBe("tool_calls");
      expect(call?.id).toBe(thinking.toolCalls?.[0]?.id as string);
      expect(JSON.parse(call?.function.arguments ?? "")).toEqual({ city: "Paris", unit: "celsius" });

      // Non-streamed first turns return reasoning_details whole; send them back with the assistant message.
      c.fake.enqueue(replyOf(adapter, "thinking", false), replyOf(adapter, "text", false));
      const collected = await client.chat.completions.create({ model, messages, tools: chatTools });
      const assistant = collected.choices[0]?.message as OpenAI.ChatCompletionMessage;
      const callId = (assistant.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall).id;
      const second = await client.chat.completions.create({
        model,
        tools: chatTools,
        messages: [...messages, assistant, { role: "tool", tool_call_id: callId, content: TOOL_OUTPUT }],
      });
      expect(second.choices[0]?.message.content).toBe(text.text as string);
      const view = upstreamCall(c.fake, adapter, false);
      expect(view.items.find((i) => i.kind === "call")).toMatchObject({ name: "get_weather", args: { city: "Paris", unit: "celsius" } });
      const carry = thinking.carry ?? {};
      const reasoning = view.items.filter((i) => i.kind === "reasoning");
      if (carry.signature !== undefined) expect(reasoning).toContainEqual(expect.objectContaining({ signature: carry.signature }));
      if (carry.encrypted !== undefined) expect(reasoning).toContainEqual(expect.objectContaining({ encrypted: carry.encrypted, id: carry.id }));
    });

    test("responses.create and responses.stream().finalResponse(): text, usage with cost", async () => {
      c.fake.enqueue(replyOf(adapter, "text", false), replyOf(adapter, "text", true));
      const response = await client.responses.create({ model, input: QUESTION, instructions: "Be terse." });
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe(text.text as string);
      expect((response.usage as WithCost<OpenAI.Responses.ResponseUsage>).cost).toBeCloseTo(expectedCost(text.usage!), 12);
      expect(upstreamCall(c.fake, adapter, false, c.fake.requests[0]).system).toBe("Be terse.");

      const stream = client.responses.stream({ model, input: QUESTION });
      let deltas = "";
      stream.on("response.output_text.delta", (event) => void (deltas += event.delta));
      const final = await stream.finalResponse();
      expect(deltas).toBe(text.text as string);
      expect(final.output_text).toBe(text.text as string);
      expect(final.usage?.input_tokens_details.cached_tokens).toBe(text.usage?.cacheRead as number);
      upstreamCall(c.fake, adapter, true, c.fake.requests[1]);
    });

    for (const streamed of [false, true]) {
      test(`responses tool round trip (${streamed ? "stream" : "create"}): output items appended to input carry call and reasoning back`, async () => {
        c.fake.enqueue(replyOf(adapter, "thinking", streamed));
        const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: WEATHER_QUESTION }];
        const params = { model, input, tools: responseTools, include: ["reasoning.encrypted_content" as const] };
        const first = streamed ? await client.responses.stream(params).finalResponse() : await client.responses.create(params);
        const output = first.output as OpenAI.Responses.ResponseOutputItem[];
        const call = output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
        expect(call?.call_id).toBe(thinking.toolCalls?.[0]?.id as string);
        expect(JSON.parse(call?.arguments ?? "")).toEqual({ city: "Paris", unit: "celsius" });
        expect(output.some((item) => item.type === "reasoning")).toBe(true);

        c.fake.enqueue(replyOf(adapter, "text", streamed));
        const nextInput = [...input, ...(output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output" as const, call_id: call?.call_id as string, output: TOOL_OUTPUT }];
        const nextParams = { model, tools: responseTools, input: nextInput };
        const second = streamed ? await client.responses.stream(nextParams).finalResponse() : await client.responses.create(nextParams);
        expect(second.output_text).toBe(text.text as string);
        const view = upstreamCall(c.fake, adapter, streamed);
        expect(view.items.find((i) => i.kind === "call")).toMatchObject({ name: "get_weather", args: { city: "Paris", unit: "celsius" } });
        const carry = thinking.carry ?? {};
        const reasoning = view.items.filter((i) => i.kind === "reasoning");
        if (carry.signature !== undefined) expect(reasoning).toContainEqual(expect.objectContaining({ signature: carry.signature }));
        if (carry.encrypted !== undefined) expect(reasoning).toContainEqual(expect.objectContaining({ encrypted: carry.encrypted, id: carry.id }));
      });
    }

    test("errors: 429 is RateLimitError; a chat stream's error chunk throws; a Responses stream ends in response.failed", async () => {
      const expected = fixture(adapter, "error").expect;
      c.fake.enqueue(httpErrorReply(adapter, false));
      const failed = await client.chat.completions.create({ model, messages: [{ role: "user", content: QUESTION }] }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(OpenAI.RateLimitError);

      c.fake.enqueue(midStreamErrorReply(adapter));
      let partial = "";
      const thrown = await (async () => {
        const stream = await client.chat.completions.create({ model, messages: [{ role: "user", content: QUESTION }], stream: true });
        for await (const chunk of stream) partial += chunk.choices[0]?.delta.content ?? "";
      })().catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(OpenAI.APIError);
      expect((thrown as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ metadata: { error_type: expected.streamErrorType } });
      expect(partial).toBe(expected.partialText as string);

      c.fake.enqueue(midStreamErrorReply(adapter));
      const events = await client.responses.create({ model, input: QUESTION, stream: true });
      let failedEvent: OpenAI.Responses.ResponseFailedEvent | undefined;
      for await (const event of events) if (event.type === "response.failed") failedEvent = event;
      expect(failedEvent?.response.status).toBe("failed");
      expect((failedEvent as unknown as { error_type: string }).error_type).toBe(expected.streamErrorType as string);
    });
  });
}
