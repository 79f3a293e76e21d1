/**
 * `chat.send` and `responses.send` of the official OpenRouter SDK against the gateway on the simulator: streamed and
 * not, with tools, reasoning, the metadata header and a server tool. "Parses" means the SDK's typed schema took the
 * answer: no field failed (the SDK would throw) and no item fell back to its unknown variant — except the gateway's
 * `service:*` items, which the SDK (knowing only `openrouter:*`) keeps as unknown items with their raw body.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SDKValidationError } from "@openrouter/sdk/models/errors";
import { OpenRouterMetadata$inboundSchema } from "@openrouter/sdk/models";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { chatChunks, chatOnce, respondOnce, responseEvents, sdkClient, unknownVariants, type SdkRig } from "../support/openrouter-sdk.ts";

let gw: TestGateway;
let rig: SdkRig;
beforeAll(async () => {
  gw = await startTestGateway();
  rig = sdkClient(gw, gw.inferenceKey, { renameBrand: true });
});
afterAll(async () => gw.close());

const METADATA = { headers: { "X-Service-Metadata": "enabled" } };
const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("chat.send", () => {
  const chatTools = [{ type: "function" as const, function: { name: "get_weather", parameters: weather } }];
  const user = (content: string) => [{ role: "user" as const, content }];

  test("not streamed: text, tool calls and reasoning parse into the SDK's types", async () => {
    const plain = await chatOnce(rig.sdk, { model: "simulator/small", messages: user("hello") });
    expect(unknownVariants(plain)).toEqual([]);
    expect(plain.choices[0]!.message.content).toStartWith("Simulated reply:");
    expect(plain.usage!.cost).toBeGreaterThan(0);

    const called = await chatOnce(rig.sdk, { model: "simulator/small", messages: user("weather?"), tools: chatTools });
    expect(called.choices[0]!.finishReason).toBe("tool_calls");
    expect(called.choices[0]!.message.toolCalls![0]!.function.name).toBe("get_weather");

    const thought = await chatOnce(rig.sdk, { model: "simulator/small", messages: user("think [sim reasoning=4]"), reasoning: { effort: "high" } });
    expect(thought.choices[0]!.message.reasoning!.split(" ")).toHaveLength(4);
  });

  test("streamed: every chunk parses (no system_fingerprint: null), text, tool-call and reasoning deltas arrive", async () => {
    const chunks = await chatChunks(rig.sdk, { model: "simulator/small", messages: user("hello [sim reasoning=2]"), reasoning: { effort: "low" } });
    expect(unknownVariants(chunks)).toEqual([]);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning ?? "").join("");
    expect(text).toStartWith("Simulated reply:");
    expect(reasoning.trim().split(/\s+/)).toHaveLength(2);
    expect(chunks.at(-1)!.choices[0]!.finishReason).toBe("stop");

    const calls = await chatChunks(rig.sdk, { model: "simulator/small", messages: user("weather?"), tools: chatTools });
    const deltas = calls.flatMap((c) => c.choices[0]?.delta.toolCalls ?? []);
    expect(deltas[0]!.function!.name).toBe("get_weather");
    expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? "").join(""))).toHaveProperty("city");
  });

  test("with X-Service-Metadata: the answer still parses, and its service_metadata has the peer's metadata shape", async () => {
    const reply = await chatOnce(rig.sdk, { model: "simulator/small", messages: user("hello") }, METADATA);
    expect(reply.choices[0]!.message.content).toBeTruthy();
    const raw = rig.bodies.at(-1) as { service_metadata?: unknown };
    expect(OpenRouterMetadata$inboundSchema.safeParse(raw.service_metadata).success).toBe(true);
    const chunks = await chatChunks(rig.sdk, { model: "simulator/small", messages: user("hello") }, METADATA);
    expect(unknownVariants(chunks)).toEqual([]);
  });

  test("a server tool (service:datetime) parses; the SDK drops message.server_tool_calls, an unknown field to it", async () => {
    const tools = [{ type: "service:datetime" }] as unknown as typeof chatTools;
    const reply = await chatOnce(rig.sdk, { model: "simulator/small", messages: user("what time is it?"), tools });
    expect(reply.choices[0]!.message.content).toStartWith("Tool result:");
    expect(reply.usage!.serverToolUseDetails).toMatchObject({ toolCallsExecuted: 1 });
    const raw = rig.bodies.at(-1) as { choices: Array<{ message: Record<string, unknown> }> };
    expect(raw.choices[0]!.message.server_tool_calls).toHaveLength(1);
    expect(reply.choices[0]!.message).not.toHaveProperty("serverToolCalls");
    const chunks = await chatChunks(rig.sdk, { model: "simulator/small", messages: user("time?"), tools });
    expect(unknownVariants(chunks)).toEqual([]);
  });
});

describe("responses.send", () => {
  const tools = [{ type: "function" as const, name: "get_weather", parameters: weather }];

  test("not streamed: the result parses (text echoes OpenAI's default format), tool calls and reasoning are typed", async () => {
    const plain = await respondOnce(rig.sdk, { model: "simulator/small", input: "hello" });
    expect(unknownVariants(plain)).toEqual([]);
    expect(plain.text).toEqual({ format: { type: "text" } });
    expect(plain.output[0]).toMatchObject({ type: "message", role: "assistant" });

    const called = await respondOnce(rig.sdk, { model: "simulator/small", input: "weather?", tools });
    expect(called.output[0]).toMatchObject({ type: "function_call", name: "get_weather" });

    const thought = await respondOnce(rig.sdk, { model: "simulator/small", input: "think [sim reasoning=3]", reasoning: { effort: "high" } });
    expect(unknownVariants(thought)).toEqual([]);
    expect(thought.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(thought.usage!.outputTokensDetails.reasoningTokens).toBe(3);
  });

  test("streamed: every event is a typed event; function_call_arguments.done names the function", async () => {
    const events = await responseEvents(rig.sdk, { model: "simulator/small", input: "weather? [sim reasoning=2]", tools });
    expect(unknownVariants(events)).toEqual([]);
    const done = events.find((e) => e.type === "response.function_call_arguments.done");
    expect(done).toMatchObject({ name: "get_weather" });
    expect(events.some((e) => e.type === "response.reasoning_text.delta")).toBe(true);
    const completed = events.at(-1)!;
    expect(completed.type).toBe("response.completed");
    if (completed.type === "response.completed") expect(completed.response.text).toEqual({ format: { type: "text" } });
  });

  test("with X-Service-Metadata: the answer still parses, and its service_metadata has the peer's metadata shape", async () => {
    const reply = await respondOnce(rig.sdk, { model: "simulator/small", input: "hello" }, METADATA);
    expect(unknownVariants(reply)).toEqual([]);
    const raw = rig.bodies.at(-1) as { service_metadata?: unknown };
    expect(OpenRouterMetadata$inboundSchema.safeParse(raw.service_metadata).success).toBe(true);
    const events = await responseEvents(rig.sdk, { model: "simulator/small", input: "hello" }, METADATA);
    expect(unknownVariants(events)).toEqual([]);
  });

  test("a server tool: the SDK will not send service:datetime itself; sent, its items come back as the SDK's unknown items", async () => {
    const plain = sdkClient(gw, gw.inferenceKey).sdk;
    const refused = plain.responses.send({ responsesRequest: { model: "simulator/small", input: "time?", tools: [{ type: "service:datetime" }] as never } });
    await expect(refused).rejects.toBeInstanceOf(SDKValidationError);

    // The rig writes the SDK's `openrouter:datetime` and sends `service:datetime`.
    const reply = await respondOnce(rig.sdk, { model: "simulator/small", input: "time?", tools: [{ type: "openrouter:datetime" }] });
    expect(unknownVariants(reply)).toEqual([".output[0] service:datetime", ".tools[0] service:datetime"]);
    expect(reply.output[1]).toMatchObject({ type: "message" });
    const events = await responseEvents(rig.sdk, { model: "simulator/small", input: "time?", tools: [{ type: "openrouter:datetime" }] });
    expect(unknownVariants(events).every((path) => path.endsWith("service:datetime"))).toBe(true);
    expect(events.at(-1)!.type).toBe("response.completed");
  });
});
