/**
 * Translation matrix, the named kinds of the `openai` adapter: every inbound format × every kind (DeepSeek, Mistral,
 * Groq, …, llama.cpp), collected and streamed, against a fake that behaves like that server (it refuses what the
 * server refuses, and answers in its dialect). A cell passes only when the gateway sent what that server accepts and
 * read what it answered: text, reasoning in whichever field or tag the server uses, and a tool round trip whose
 * second turn carries the history back the way the server wants it (no reasoning for DeepSeek, nine-character ids
 * and no unknown fields for Mistral).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { DEFAULT_TEXT, KIND_NAMES, keyOf, LOCAL_KINDS } from "../support/fake-compatible/dialects.ts";
import { send, WEATHER_TOOL, type Conversation } from "./support/client.ts";
import { ASK_REASONING, type KindsRig, modelOf, providerOf, SERVED, startKinds } from "./support/kinds.ts";
import { kindCells, TOOL_OUTPUT, WEATHER_QUESTION } from "./support/matrix.ts";

let rig: KindsRig;
beforeAll(async () => void (rig = await startKinds()));
afterAll(() => rig.close());
beforeEach(() => rig.fake.reset());

const REASONING = "The user asks about the weather; Paris is the city, so I call the tool.";
const ANSWER = "It is 18 °C and sunny in Paris.";

for (const cell of kindCells(KIND_NAMES)) {
  const { format, kind, stream } = cell;
  const model = modelOf(kind);
  describe(cell.label, () => {
    test("text: the answer, its finish and usage reach the client; the server got its model and its auth", async () => {
      const seen = await send(rig.gw, format, { model, turns: [{ role: "user", text: "What is the capital of France?" }], stream });
      expect(seen.error).toBeUndefined();
      expect(seen.text).toBe(DEFAULT_TEXT);
      expect(seen.finish).toBe("stop");
      expect(seen.model).toBe(model);
      if (format !== "responses") expect(seen.provider).toBe(providerOf(kind));
      expect(seen.usage?.output).toBe(9);
      const sent = rig.fake.lastChat();
      expect(sent.body.model).toBe(SERVED[kind]);
      expect(sent.body.stream === true).toBe(stream);
      // Cloud kinds get their key; local servers get none.
      expect(sent.headers.authorization).toBe(LOCAL_KINDS.includes(kind) ? undefined : `Bearer ${keyOf(kind)}`);
    });

    test("reasoning and a tool round trip: reasoning as a part (never in the text), the call, then the result back", async () => {
      const first: Conversation = { model, turns: [{ role: "user", text: WEATHER_QUESTION }], tools: [WEATHER_TOOL], stream, extra: ASK_REASONING[format] };
      rig.fake.answer(
        { reasoning: REASONING, toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], usage: { prompt: 40, completion: 30, reasoning: 21 } },
        { text: ANSWER },
      );
      const one = await send(rig.gw, format, first);
      expect(one.error).toBeUndefined();
      expect(one.reasoning).toBe(REASONING);
      expect(one.text).toBe("");
      expect(one.finish).toBe("tool_calls");
      expect(one.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["get_weather", { city: "Paris" }]]);
      // Reasoning tokens are output (xAI counts them apart from completion_tokens).
      expect(one.usage?.output).toBe(30);
      const call = one.toolCalls[0]!;
      const two = await send(rig.gw, format, {
        ...first,
        turns: [{ role: "user", text: WEATHER_QUESTION }, { role: "replay", items: one.replay }, { role: "tool", callId: call.id, name: call.name, content: TOOL_OUTPUT }],
      });
      expect(two.error).toBeUndefined();
      expect(two.text).toBe(ANSWER);
      // The history reached the server as one assistant call and the tool result answering the same id.
      const history = rig.fake.lastChat().body.messages as Array<Record<string, unknown>>;
      const assistant = history.find((m) => m.role === "assistant")!;
      const result = history.find((m) => m.role === "tool")!;
      const sentId = (assistant.tool_calls as Array<{ id: string }>)[0]!.id;
      expect(result.tool_call_id).toBe(sentId);
      expect(result.content).toBe(TOOL_OUTPUT);
    });
  });
}
