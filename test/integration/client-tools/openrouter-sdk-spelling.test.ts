/**
 * The peer's own spellings, unchanged, through HTTP: `@openrouter/sdk` sends server tools as `openrouter:<tool>`
 * (it refuses to send `service:*`) and names routers `openrouter/auto`. Each is the gateway's `service:<tool>` /
 * `service/auto`, in all three formats (Messages through `@anthropic-ai/sdk`), and the calls come back in the
 * spelling the client used, so the SDK parses them as its own typed items.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { startTestGateway } from "../../support/gateway.ts";
import { chatChunks, chatOnce, respondOnce, responseEvents, sdkClient, unknownVariants, type SdkRig } from "../../support/openrouter-sdk.ts";
import type { Script } from "../../support/scripted-model.ts";
import { MODEL, startAgentGateway, type AgentGateway } from "../agent/setup.ts";

type Json = Record<string, any>;
let agent: AgentGateway;
let rig: SdkRig;

/** Asks the time once (when it has the tool), then answers. */
const clock: Script = (body) => {
  const asked = (body.messages as Json[]).some((m) => m.role === "tool");
  const has = ((body.tools ?? []) as Json[]).some((t) => t.function.name === "datetime");
  return asked || !has ? { text: "Tool result: it is time." } : { calls: [{ name: "datetime" }] };
};

beforeAll(async () => {
  agent = await startAgentGateway(clock);
  rig = sdkClient(agent.gw, agent.gw.inferenceKey);
});
afterAll(() => agent.close());

const DATETIME = { type: "openrouter:datetime" as const, parameters: { timezone: "Europe/Paris" } };

describe("chat.send", () => {
  test("openrouter:datetime runs; message.server_tool_calls names it as the client did", async () => {
    const reply = await chatOnce(rig.sdk, { model: MODEL, messages: [{ role: "user", content: "what time is it?" }], tools: [DATETIME] });
    expect(reply.choices[0]!.message.content).toStartWith("Tool result:");
    expect(reply.usage!.serverToolUseDetails).toMatchObject({ toolCallsExecuted: 1 });
    const raw = rig.bodies.at(-1) as Json;
    expect(raw.choices[0].message.server_tool_calls).toEqual([expect.objectContaining({ type: "openrouter:datetime", status: "completed", result: expect.objectContaining({ timezone: "Europe/Paris" }) })]);
    const chunks = await chatChunks(rig.sdk, { model: MODEL, messages: [{ role: "user", content: "time?" }], tools: [DATETIME] });
    expect(unknownVariants(chunks)).toEqual([]);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toStartWith("Tool result:");
  });

  test("tool_choice {type: openrouter:datetime} forces it", async () => {
    const reply = await chatOnce(rig.sdk, {
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "other", parameters: { type: "object", properties: {} } } }, DATETIME],
      toolChoice: { type: "openrouter:datetime" },
    });
    expect(agent.upstream.bodies.at(-2)!.tool_choice).toEqual({ type: "function", function: { name: "datetime" } });
    expect((rig.bodies.at(-1) as Json).choices[0].message.server_tool_calls[0].type).toBe("openrouter:datetime");
    expect(reply.choices[0]!.message.content).toStartWith("Tool result:");
  });

  test("model openrouter/auto is the auto-router, and openrouter/pareto-code:nitro the pareto router", async () => {
    const reply = await chatOnce(rig.sdk, { model: "openrouter/auto", messages: [{ role: "user", content: "hello" }] }, { headers: { "X-Service-Metadata": "enabled" } });
    expect(reply.model).toBe(MODEL);
    expect((rig.bodies.at(-1) as Json).service_metadata).toMatchObject({ strategy: "auto" });
    const coding = await chatOnce(rig.sdk, { model: "openrouter/pareto-code:nitro", messages: [{ role: "user", content: "fix my code" }] }, { headers: { "X-Service-Metadata": "enabled" } });
    expect(coding.model).toBe(MODEL);
    expect((rig.bodies.at(-1) as Json).service_metadata).toMatchObject({ strategy: "pareto" });
  });

  test("an operator's own catalog model named openrouter/auto is that model, not the router", async () => {
    const proxy = await startTestGateway({
      file: { providers: [{ id: "peer", adapter: "openai", base_url: agent.upstream.baseUrl, api_key: "k", models: [{ id: "openrouter/auto", upstream_model: "peer-auto" }, { id: "acme/other", upstream_model: "other" }] }] },
    });
    try {
      const reply = await chatOnce(sdkClient(proxy, proxy.inferenceKey).sdk, { model: "openrouter/auto", messages: [{ role: "user", content: "hello" }] });
      expect(reply.model).toBe("openrouter/auto");
      expect(agent.upstream.bodies.at(-1)!.model).toBe("peer-auto");
    } finally {
      await proxy.close();
    }
  });
});

describe("responses.send", () => {
  test("openrouter:datetime runs and its item is the SDK's own typed openrouter:datetime item", async () => {
    const reply = await respondOnce(rig.sdk, { model: MODEL, input: "time?", tools: [DATETIME] });
    // The echoed `tools` stay unknown to the SDK: its result schema lists no server tool of its own brand there.
    const unknown = (paths: string[]) => paths.filter((path) => !path.startsWith(".tools"));
    expect(unknown(unknownVariants(reply))).toEqual([]);
    expect(reply.output.map((item) => item.type)).toEqual(["openrouter:datetime", "message"]);
    expect(reply.output[0]).toMatchObject({ type: "openrouter:datetime", status: "completed", timezone: "Europe/Paris" });
    // Streamed: the finished item and the completed response parse (the item announced while running has no
    // `datetime` yet, which the SDK's item type requires).
    const events = await responseEvents(rig.sdk, { model: MODEL, input: "time?", tools: [DATETIME] });
    const done = events.filter((e) => e.type === "response.output_item.done");
    expect(unknownVariants(done)).toEqual([]);
    expect(done.map((e) => e.type === "response.output_item.done" && e.item.type)).toEqual(["openrouter:datetime", "message"]);
    const completed = events.at(-1)!;
    expect(completed.type).toBe("response.completed");
    if (completed.type === "response.completed") expect(unknown(unknownVariants(completed.response))).toEqual([]);
  });

  test("the reply's openrouter:datetime item sent back as input is the call and result the model saw", async () => {
    await respondOnce(rig.sdk, { model: MODEL, input: "time?", tools: [DATETIME] });
    const first = rig.bodies.at(-1) as Json;
    const res = await agent.gw.request("/responses", {
      method: "POST",
      json: { model: MODEL, input: [{ role: "user", content: "time?" }, ...first.output, { role: "user", content: "and now?" }], tools: [DATETIME] },
    });
    expect(res.status).toBe(200);
    const messages = agent.upstream.bodies.at(-1)!.messages as Json[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(messages[1]!.tool_calls[0].function.name).toBe("datetime");
    expect(JSON.parse(messages[2]!.content)).toMatchObject({ timezone: "Europe/Paris" });
  });
});

describe("Messages (@anthropic-ai/sdk)", () => {
  test("openrouter:datetime runs: server_tool_use names it as sent, its result is an openrouter_datetime_tool_result", async () => {
    const client = new Anthropic({ baseURL: `${agent.gw.origin}/api`, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
    const message = await client.messages.create({ model: MODEL, max_tokens: 200, messages: [{ role: "user", content: "time?" }], tools: [DATETIME] as never });
    const blocks = message.content as unknown as Json[];
    expect(blocks.map((b) => b.type)).toEqual(["server_tool_use", "openrouter_datetime_tool_result", "text"]);
    expect(blocks[0]!.name).toBe("openrouter:datetime");
    expect(blocks[1]!.content).toMatchObject({ timezone: "Europe/Paris" });
  });
});
