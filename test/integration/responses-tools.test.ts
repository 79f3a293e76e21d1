/**
 * POST /responses round trips over both adapters, non-streaming: function calls and their outputs keep the original
 * call_id (and the upstream item id), reasoning items go back to the upstream that can carry them (with encrypted
 * content to a Responses upstream), output content (annotations, refusals) survives, the raw safety_identifier never
 * leaves the gateway (session_id precedence is in responses-limits.test.ts).
 */
import { describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { hashSafetyIdentifier } from "../../core/formats/responses/decode.ts";
import {
  FAKE_ANNOTATION,
  FAKE_CITED_TEXT,
  FAKE_ENCRYPTED,
  FAKE_IDS,
  FAKE_REASONED_TEXT,
  FAKE_REFUSAL,
  FAKE_SECOND_CALL,
  FAKE_SUMMARY,
  CHAT_MODEL as CHAT,
  NATIVE_MODEL as NATIVE,
  useResponsesRig,
} from "../support/fake-responses-upstream.ts";

type Json = Record<string, any>;

const rig = useResponsesRig();

const simLast = (): Json => rig.simLast();
/** A result's output items sent back as the next turn's input, as a stateless client does. */
const asInput = (items: OpenAI.Responses.ResponseOutputItem[]) => items as unknown as OpenAI.Responses.ResponseInputItem[];

describe("function tools round-trip with the original call_id", () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false },
  ];

  test("openai adapter: function_call → tool_calls upstream; function_call_output → tool message with the same id", async () => {
    const first = await rig.client.responses.create({ model: CHAT, input: "Weather in Paris?", tools });
    const call = first.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toBeDefined();
    expect(call.call_id).toMatch(/^call_sim_/);
    expect(call.name).toBe("get_weather");
    expect(JSON.parse(call.arguments)).toEqual({ city: "simulated" });
    expect(first.status).toBe("completed");
    expect(simLast().tools).toEqual([{ type: "function", function: { name: "get_weather", parameters: tools[0]!.parameters, strict: false } }]);

    const second = await rig.client.responses.create({
      model: CHAT,
      tools,
      input: [{ role: "user", content: "Weather in Paris?" }, ...asInput(first.output), { type: "function_call_output", call_id: call.call_id, output: "sunny, 21C" }],
    });
    const messages = simLast().messages as Json[];
    expect(messages).toHaveLength(3);
    expect(messages[1]).toMatchObject({ role: "assistant", content: null, tool_calls: [{ id: call.call_id, type: "function", function: { name: "get_weather", arguments: call.arguments } }] });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: call.call_id, content: "sunny, 21C" });
    expect(second.output_text).toContain("sunny, 21C");
  });

  test("openai-responses adapter: call_id and item id travel back as function_call + function_call_output items", async () => {
    const first = await rig.client.responses.create({ model: NATIVE, input: "Weather in Paris? [fake tool]", tools });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(first.output).toHaveLength(1);
    expect(call).toMatchObject({ type: "function_call", id: FAKE_IDS.callItem, call_id: FAKE_IDS.callId, name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" });

    const second = await rig.client.responses.create({
      model: NATIVE,
      tools,
      input: [{ role: "user", content: "Weather in Paris? [fake tool]" }, ...asInput(first.output), { type: "function_call_output", call_id: call.call_id, output: "sunny, 21C" }],
    });
    const input = rig.fake.last().body.input as Json[];
    expect(input.slice(1)).toEqual([
      { type: "function_call", call_id: FAKE_IDS.callId, name: "get_weather", arguments: '{"city":"Paris"}', id: FAKE_IDS.callItem },
      { type: "function_call_output", call_id: FAKE_IDS.callId, output: "sunny, 21C" },
    ]);
    expect(second.output_text).toBe("Tool said: sunny, 21C");
  });

  test("openai-responses adapter: parallel calls keep their ids and both outputs go back in order", async () => {
    const first = await rig.client.responses.create({ model: NATIVE, input: "Paris and Rome? [fake tools2]", tools });
    expect(first.output.map((item) => item.type)).toEqual(["message", "function_call", "function_call"]);
    expect(first.output.slice(1)).toMatchObject([
      { id: FAKE_IDS.callItem, call_id: FAKE_IDS.callId, arguments: '{"city":"Paris"}' },
      { id: FAKE_SECOND_CALL.itemId, call_id: FAKE_SECOND_CALL.callId, arguments: '{"city":"Rome"}' },
    ]);
    await rig.client.responses.create({
      model: NATIVE,
      tools,
      input: [
        { role: "user", content: "Paris and Rome?" },
        ...asInput(first.output),
        { type: "function_call_output", call_id: FAKE_IDS.callId, output: "sunny" },
        { type: "function_call_output", call_id: FAKE_SECOND_CALL.callId, output: "rain" },
      ],
    });
    expect(rig.fake.last().body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "Paris and Rome?" }] },
      { role: "assistant", content: [{ type: "output_text", text: "Checking both.", annotations: [] }] },
      { type: "function_call", call_id: FAKE_IDS.callId, name: "get_weather", arguments: '{"city":"Paris"}', id: FAKE_IDS.callItem },
      { type: "function_call", call_id: FAKE_SECOND_CALL.callId, name: "get_weather", arguments: '{"city":"Rome"}', id: FAKE_SECOND_CALL.itemId },
      { type: "function_call_output", call_id: FAKE_IDS.callId, output: "sunny" },
      { type: "function_call_output", call_id: FAKE_SECOND_CALL.callId, output: "rain" },
    ]);
  });
});

describe("output content", () => {
  test("openai-responses adapter: output_text annotations are kept", async () => {
    const result = await rig.client.responses.create({ model: NATIVE, input: "Docs? [fake cited]" });
    expect((result.output[0] as OpenAI.Responses.ResponseOutputMessage).content).toEqual([{ type: "output_text", text: FAKE_CITED_TEXT, annotations: [FAKE_ANNOTATION] as never }]);
  });

  test("openai-responses adapter: a refusal is a refusal content part", async () => {
    const result = await rig.client.responses.create({ model: NATIVE, input: "Bad idea [fake refusal]" });
    expect((result.output[0] as OpenAI.Responses.ResponseOutputMessage).content).toEqual([{ type: "refusal", refusal: FAKE_REFUSAL }]);
  });
});

describe("reasoning items are carried back", () => {
  test("openai-responses adapter: the reasoning item goes back with its id and encrypted content", async () => {
    const first = await rig.client.responses.create({ model: NATIVE, input: "Weather? [fake reasoning]", reasoning: { effort: "low", summary: "auto" } });
    expect(rig.fake.last().body.include).toEqual(["reasoning.encrypted_content"]);
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning).toMatchObject({ type: "reasoning", id: FAKE_IDS.reasoning, encrypted_content: FAKE_ENCRYPTED, summary: [{ type: "summary_text", text: FAKE_SUMMARY }] });
    expect(first.output_text).toBe(FAKE_REASONED_TEXT);

    await rig.client.responses.create({
      model: NATIVE,
      reasoning: { effort: "low", summary: "auto" },
      input: [{ role: "user", content: "Weather?" }, ...asInput(first.output), { role: "user", content: "And tomorrow?" }],
    });
    const input = rig.fake.last().body.input as Json[];
    expect(input[1]).toEqual({ type: "reasoning", id: FAKE_IDS.reasoning, summary: [{ type: "summary_text", text: FAKE_SUMMARY }], encrypted_content: FAKE_ENCRYPTED });
    expect(input[2]).toEqual({ role: "assistant", content: [{ type: "output_text", text: FAKE_REASONED_TEXT, annotations: [] }] });
    expect(input[3]).toEqual({ role: "user", content: [{ type: "input_text", text: "And tomorrow?" }] });
  });

  test("openai adapter: reasoning text goes back on the assistant message of the chat upstream", async () => {
    const first = await rig.client.responses.create({ model: CHAT, input: "Think first [sim tokens=3 reasoning=4]" });
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    const text = reasoning.content![0]!.text;
    expect(text.split(/\s+/)).toHaveLength(4);
    await rig.client.responses.create({ model: CHAT, input: [{ role: "user", content: "Think first" }, ...asInput(first.output), { role: "user", content: "Again" }] });
    const messages = simLast().messages as Json[];
    expect(messages[1]).toMatchObject({ role: "assistant", content: first.output_text, reasoning: text });
  });
});

describe("safety_identifier", () => {
  for (const [label, model, upstreamBody] of [
    ["openai adapter", CHAT, () => JSON.stringify(rig.sim.requests.at(-1)!.body)],
    ["openai-responses adapter", NATIVE, () => rig.fake.last().raw],
  ] as const) {
    test(`${label}: the raw safety_identifier never reaches the upstream, only its hash`, async () => {
      const raw = "alice@example.com";
      const res = await rig.gw.request("/responses", { method: "POST", json: { model, input: "hi", safety_identifier: raw } });
      expect(res.status).toBe(200);
      const sent = upstreamBody();
      expect(sent).not.toContain(raw);
      expect(JSON.parse(sent).safety_identifier).toBe(hashSafetyIdentifier(raw));
      expect(await res.text()).not.toContain(raw);
    });
  }
});
