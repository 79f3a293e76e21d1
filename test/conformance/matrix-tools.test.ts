/**
 * Translation matrix, tool use and reasoning: tool calls (ids preserved, arguments never lost in
 * streaming), tool results on the next turn, and reasoning whose signature / encrypted content must travel back to
 * the upstream on the next turn — for every inbound format × upstream adapter, collected and streamed.
 * The second turn always replays exactly what the client received in the first, as an SDK user would.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fixture, replyOf, wireFamily, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { args, send, WEATHER_TOOL, type Conversation, type Seen } from "./support/client.ts";
import { allCells, TOOL_OUTPUT, upstreamCall, WEATHER_QUESTION } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";
import type { UpstreamItem, UpstreamView } from "./support/upstream-view.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

/** The tool's JSON schema as the upstream received it, wherever its dialect puts it. */
function toolSchemaSent(adapter: AdapterId, view: UpstreamView): unknown {
  // Converse keeps its tools under toolConfig.
  const tools = (adapter === "bedrock" ? (view.body.toolConfig as Record<string, unknown>).tools : view.body.tools) as Array<Record<string, unknown>>;
  const first = tools[0] as Record<string, unknown>;
  switch (wireFamily(adapter)) {
    case "openai":
      return (first.function as Record<string, unknown>).parameters;
    case "openai-responses":
      return first.parameters;
    case "anthropic":
      return first.input_schema;
    case "gemini":
      return ((first.functionDeclarations as Array<Record<string, unknown>>)[0] as Record<string, unknown>).parametersJsonSchema;
    case "bedrock":
      return ((first.toolSpec as Record<string, unknown>).inputSchema as Record<string, unknown>).json;
  }
}

function firstTurn(adapter: AdapterId, stream: boolean): Conversation {
  return { model: MODEL[adapter], turns: [{ role: "user", text: WEATHER_QUESTION }], tools: [WEATHER_TOOL], stream };
}

/** Turn 2: the first turn, the client's replay of what it received, and the tool's output for the call. */
function secondTurn(adapter: AdapterId, stream: boolean, first: Seen): Conversation {
  const call = first.toolCalls[0];
  if (!call) throw new Error("the first turn produced no tool call");
  return {
    ...firstTurn(adapter, stream),
    turns: [
      { role: "user", text: WEATHER_QUESTION },
      { role: "replay", items: first.replay },
      { role: "tool", callId: call.id, name: call.name, content: TOOL_OUTPUT },
    ],
  };
}

/** The reasoning family each adapter's reasoning is tagged with (the openai fixture is Claude behind OpenRouter). */
const REASONING_FORMAT: Record<AdapterId, string> = {
  openai: "anthropic-claude-v1",
  "openai-responses": "openai-responses-v1",
  anthropic: "anthropic-claude-v1",
  gemini: "google-gemini-v1",
  // Claude on Bedrock: Anthropic's signatures, valid on every Claude platform.
  bedrock: "anthropic-claude-v1",
  // Azure OpenAI: a reasoning model's plain reasoning_content (no family), and OpenAI's Responses reasoning.
  azure: "unknown",
  "azure-responses": "openai-responses-v1",
  // Google Vertex AI: Gemini's thought signatures, Claude's signed thinking.
  vertex: "google-gemini-v1",
  "vertex-anthropic": "anthropic-claude-v1",
};

/**
 * A Responses reasoning item shows the reasoning once, as OpenAI's API does: no summary was asked for here, so the
 * text is `reasoning_text` content and `summary` is empty — except the upstream's own summary (openai-responses),
 * kept as it came. Every chat `reasoning_details` entry carries its family in `format` (the OpenRouter AI SDK
 * provider keeps only those).
 */
function expectReasoningFields(format: string, adapter: AdapterId, first: Seen, reasoning: string): void {
  if (format === "responses") {
    const items = (first.replay as Array<Record<string, unknown>>).filter((item) => item.type === "reasoning");
    const join = (list: unknown) => ((list as Array<{ text: string }> | undefined) ?? []).map((s) => s.text).join("");
    const texts = items.map((item) => ({ summary: join(item.summary), content: join(item.content) }));
    expect(texts.map((t) => t.content || t.summary).join("")).toBe(reasoning);
    for (const t of texts) {
      if (wireFamily(adapter) !== "openai-responses") expect(t.summary).toBe("");
      if (t.summary !== "") expect(t.content).not.toBe(t.summary);
    }
  }
  if (format === "chat") {
    const details = ((first.replay[0] as Record<string, unknown>).reasoning_details as Array<{ format?: string }> | undefined) ?? [];
    expect(details.length).toBeGreaterThan(0);
    expect(details.map((d) => d.format)).toEqual(details.map(() => REASONING_FORMAT[adapter]));
  }
}

/** The call and its result as the upstream received them on turn 2 (ids where the upstream has ids). */
function expectCallAndResult(adapter: AdapterId, view: UpstreamView, callId: string): void {
  const call = view.items.find((i) => i.kind === "call");
  const result = view.items.find((i) => i.kind === "result");
  expect(call).toEqual({ kind: "call", id: wireFamily(adapter) === "gemini" ? undefined : callId, name: "get_weather", args: { city: "Paris", unit: "celsius" } });
  if (wireFamily(adapter) === "gemini") {
    // Gemini has no call ids: the result is matched by function name, and must be an object.
    expect(result).toEqual({ kind: "result", id: undefined, name: "get_weather", content: JSON.stringify(JSON.parse(TOOL_OUTPUT)) });
  } else {
    expect(result).toEqual({ kind: "result", id: callId, name: undefined, content: TOOL_OUTPUT });
  }
  expect(view.items.indexOf(call as UpstreamItem)).toBeLessThan(view.items.indexOf(result as UpstreamItem));
}

for (const cell of allCells()) {
  const { format, adapter, stream } = cell;
  describe(cell.label, () => {
    test("tool call: id, name and complete arguments reach the client; the tool definition reaches the upstream", async () => {
      const expected = fixture(adapter, "tool-call").expect;
      const want = expected.toolCalls?.[0];
      c.fake.enqueue(replyOf(adapter, "tool-call", stream));
      const seen = await send(c.gw, format, firstTurn(adapter, stream));
      expect(seen.error).toBeUndefined();
      expect(seen.finish).toBe("tool_calls");
      expect(seen.toolCalls).toHaveLength(1);
      const call = seen.toolCalls[0];
      expect(call?.id).toBe(want?.id as string);
      expect(call?.name).toBe("get_weather");
      expect(args(call?.arguments ?? "")).toEqual(want?.arguments);
      if (stream) {
        // Every argument fragment was relayed: the deltas alone rebuild the whole JSON.
        expect(seen.deltaArgs).toHaveLength(1);
        expect(args(seen.deltaArgs[0] ?? "")).toEqual(want?.arguments);
        expect(seen.ended).toBe(true);
      }
      const view = upstreamCall(c.fake, adapter, stream);
      expect(view.tools).toEqual(["get_weather"]);
      expect(toolSchemaSent(adapter, view)).toEqual(WEATHER_TOOL.parameters);
    });

    test("tool result: the next turn carries the call (same id and arguments) and its result", async () => {
      c.fake.enqueue(replyOf(adapter, "tool-call", stream));
      const first = await send(c.gw, format, firstTurn(adapter, stream));
      const callId = first.toolCalls[0]?.id as string;
      c.fake.enqueue(replyOf(adapter, "text", stream));
      const second = await send(c.gw, format, secondTurn(adapter, stream, first));
      expect(second.error).toBeUndefined();
      expect(second.status).toBe(200);
      expect(second.text).toBe(fixture(adapter, "text").expect.text as string);
      const view = upstreamCall(c.fake, adapter, stream);
      expect(view.items[0]).toEqual({ kind: "text", role: "user", text: WEATHER_QUESTION });
      expectCallAndResult(adapter, view, callId);
    });

    test("parallel tool calls: both calls in order with their ids and complete arguments; both results go back by id", async () => {
      const want = fixture(adapter, "parallel-tool-calls").expect.toolCalls ?? [];
      c.fake.enqueue(replyOf(adapter, "parallel-tool-calls", stream));
      const first = await send(c.gw, format, firstTurn(adapter, stream));
      expect(first.finish).toBe("tool_calls");
      expect(first.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: args(call.arguments) }))).toEqual(want);
      if (stream) expect(first.deltaArgs.map((a) => args(a))).toEqual(want.map((w) => w.arguments));

      c.fake.enqueue(replyOf(adapter, "text", stream));
      const second = await send(c.gw, format, {
        ...firstTurn(adapter, stream),
        turns: [
          { role: "user", text: WEATHER_QUESTION },
          { role: "replay", items: first.replay },
          ...first.toolCalls.map((call, i) => ({ role: "tool" as const, callId: call.id, name: call.name, content: `{"temperature_c": ${18 + i}}` })),
        ],
      });
      expect(second.status).toBe(200);
      const view = upstreamCall(c.fake, adapter, stream);
      const gemini = wireFamily(adapter) === "gemini";
      expect(view.items.filter((i) => i.kind === "call")).toEqual(want.map((w) => ({ kind: "call", id: gemini ? undefined : w.id, name: "get_weather", args: w.arguments })));
      expect(view.items.filter((i) => i.kind === "result")).toEqual(
        want.map((w, i) => ({ kind: "result", id: gemini ? undefined : w.id, name: gemini ? "get_weather" : undefined, content: `{"temperature_c":${gemini ? "" : " "}${18 + i}}` })),
      );
    });

    test("reasoning: shown to the client, and its signature / encrypted content travels back on the next turn", async () => {
      const expected = fixture(adapter, "thinking").expect;
      c.fake.enqueue(replyOf(adapter, "thinking", stream));
      const first = await send(c.gw, format, firstTurn(adapter, stream));
      expect(first.error).toBeUndefined();
      expect(first.reasoning).toBe(expected.reasoning as string);
      expectReasoningFields(format, adapter, first, expected.reasoning as string);
      expect(first.finish).toBe("tool_calls");
      expect(args(first.toolCalls[0]?.arguments ?? "")).toEqual(expected.toolCalls?.[0]?.arguments);

      c.fake.enqueue(replyOf(adapter, "text", stream));
      const second = await send(c.gw, format, secondTurn(adapter, stream, first), { metadata: true });
      expect(second.status).toBe(200);
      const view = upstreamCall(c.fake, adapter, stream);
      const carry = expected.carry ?? {};
      const reasoning = view.items.filter((i): i is Extract<UpstreamItem, { kind: "reasoning" }> => i.kind === "reasoning");
      if (carry.signature !== undefined) expect(reasoning.map((r) => r.signature)).toContain(carry.signature);
      // Once: a Responses item's summary that repeats its text is not sent as a second copy.
      if (wireFamily(adapter) === "anthropic" || adapter === "openai" || adapter === "bedrock") expect(reasoning.map((r) => r.text)).toEqual([expected.reasoning as string]);
      if (carry.encrypted !== undefined) expect(reasoning).toContainEqual({ kind: "reasoning", id: carry.id as string, encrypted: carry.encrypted });
      // The reasoning goes back in front of the call it preceded (where it goes back at all).
      const call = view.items.findIndex((i) => i.kind === "call");
      if (reasoning.length > 0) expect(view.items.findIndex((i) => i.kind === "reasoning")).toBeLessThan(call);
      expectCallAndResult(adapter, view, first.toolCalls[0]?.id as string);
      const warnings = (second.metadata?.warnings as Array<{ field?: string }> | undefined) ?? [];
      if (adapter === "azure") {
        // Azure's chat completions has no field for reasoning in an assistant turn: left out, and said so.
        expect(reasoning).toEqual([]);
        expect(warnings.map((w) => w.field)).toContain("messages.assistant.reasoning");
        return;
      }
      // Carried back whole: nothing about the reasoning had to be dropped on the way.
      expect(warnings.filter((w) => /reasoning|signature/.test(w.field ?? ""))).toEqual([]);
    });
  });
}
