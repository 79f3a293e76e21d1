/**
 * A model that calls our tool again on the last turn, after tool calls were disabled (`tool_choice: "none"` ignored,
 * as some models do): the call is dropped, and the reply ends as the plain answer it is — chat `finish_reason:
 * "stop"` with no `tool_calls`, Messages `stop_reason: "end_turn"` — never a `tool_calls` finish naming calls the
 * client cannot see. Through the official clients, streamed and not. (A Responses reply has no finish reason: it is
 * `completed` either way.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

let agent: AgentGateway;
let openai: OpenAI;
let anthropic: Anthropic;

/** Every turn says a word and calls datetime, whatever `tool_choice` says. */
const disobedient = () => ({ text: "It is late.", calls: [{ name: "datetime", args: { timezone: "UTC" } }] });
const stopAfterOne = [{ type: "step_count_is", step_count: 1 }];

beforeAll(async () => {
  agent = await startAgentGateway(disobedient);
  openai = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: agent.gw.origin + "/api", apiKey: agent.gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
});

/** The last turn was the one with tool calls disabled, and the model called the tool on it all the same. */
function expectDisobeyedLastTurn(): void {
  expect(agent.upstream.bodies.map((body) => body.tool_choice ?? "auto")).toEqual(["auto", "none"]);
}

describe("Chat Completions (openai)", () => {
  const body = { model: MODEL, messages: [{ role: "user" as const, content: "time?" }], tools: [{ type: "service:datetime" }] as never, stop_server_tools_when: stopAfterOne };

  test("not streamed: finish_reason stop, no tool_calls, the dropped call said in a warning", async () => {
    const completion = await openai.chat.completions.create(body as never, { headers: { "x-service-metadata": "enabled" } });
    expectDisobeyedLastTurn();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.tool_calls ?? []).toEqual([]);
    expect(choice.message.content).toBe("It is late.It is late.");
    const warnings = (completion as unknown as { service_metadata: { warnings: Array<{ message: string }> } }).service_metadata.warnings;
    expect(warnings.map((w) => w.message).join("\n")).toContain("after tool calls were disabled");
  });

  test("streamed: the chunk with the finish says stop, and no tool_calls delta came", async () => {
    const stream = await openai.chat.completions.create({ ...body, stream: true } as never);
    const finishes: unknown[] = [];
    let toolDeltas = 0;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      const choice = chunk.choices[0];
      if (choice?.finish_reason) finishes.push(choice.finish_reason);
      if (choice?.delta.tool_calls) toolDeltas++;
    }
    expectDisobeyedLastTurn();
    expect(finishes).toEqual(["stop"]);
    expect(toolDeltas).toBe(0);
  });
});

describe("Messages (@anthropic-ai/sdk)", () => {
  const body = { model: MODEL, max_tokens: 200, messages: [{ role: "user" as const, content: "time?" }], tools: [{ type: "service:datetime" }] as never, stop_server_tools_when: stopAfterOne };

  test("not streamed: stop_reason end_turn, no tool_use block", async () => {
    const message = await anthropic.messages.create(body as never);
    expectDisobeyedLastTurn();
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content.filter((block) => block.type === "tool_use")).toEqual([]);
  });

  test("streamed: the final message says end_turn", async () => {
    const final = await anthropic.messages.stream(body as never).finalMessage();
    expectDisobeyedLastTurn();
    expect(final.stop_reason).toBe("end_turn");
    expect(final.content.filter((block) => block.type === "tool_use")).toEqual([]);
  });
});
