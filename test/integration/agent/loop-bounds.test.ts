/**
 * The loop's bounds, each at its boundary: `max_tool_calls` (default 30, max 30; 31 is a 400) and the five
 * `stop_server_tools_when` conditions. When one fires while the model still calls tools, the calls run and one
 * last turn is made with tool calls disabled (seen in the body the upstream received).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { callsFor, MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

let agent: AgentGateway;
const always = callsFor(1000, [{ name: "datetime", args: { timezone: "UTC" } }]);

beforeAll(async () => {
  agent = await startAgentGateway(always);
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
  agent.upstream.script = always;
});

async function run(extra: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await agent.gw.request("/responses", {
    method: "POST",
    json: { model: MODEL, input: "time?", tools: [{ type: "service:datetime" }], ...extra },
    headers: { "x-service-metadata": "enabled" },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const toolChoices = () => agent.upstream.bodies.map((body) => body.tool_choice ?? "auto");
const outputTypes = (body: Record<string, unknown>) => (body.output as Array<{ type: string }>).map((item) => item.type);

describe("max_tool_calls", () => {
  test("31 is refused with a 400 naming the field; 30 is accepted", async () => {
    const refused = await run({ max_tool_calls: 31 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("max_tool_calls");
    expect(agent.upstream.bodies).toHaveLength(0);
    agent.upstream.script = callsFor(1, [{ name: "datetime" }]);
    expect((await run({ max_tool_calls: 30 })).status).toBe(200);
  });

  test("2 steps, then one last turn with tool calls disabled, whose text ends the reply", async () => {
    const { status, body } = await run({ max_tool_calls: 2 });
    expect(status).toBe(200);
    expect(toolChoices()).toEqual(["auto", "auto", "none"]);
    expect(outputTypes(body)).toEqual(["service:datetime", "service:datetime", "message"]);
    const entry = ((body.service_metadata as { pipeline: Array<{ name: string; data: { stopped_by?: string; steps: unknown[] } }> }).pipeline).find((e) => e.name === "agent-loop");
    expect(entry?.data.stopped_by).toContain("max_tool_calls");
    expect(entry?.data.steps).toHaveLength(2);
  });

  test("0: not one step; the only turn has tool calls disabled", async () => {
    const { status, body } = await run({ max_tool_calls: 0 });
    expect(status).toBe(200);
    expect(toolChoices()).toEqual(["none"]);
    expect(outputTypes(body)).toEqual(["message"]);
  });

  test("the default is 30 steps", async () => {
    const { body } = await run({});
    expect(agent.upstream.bodies).toHaveLength(31);
    expect(toolChoices().at(-1)).toBe("none");
    expect(outputTypes(body).filter((t) => t === "service:datetime")).toHaveLength(30);
  });
});

describe("stop_server_tools_when", () => {
  /** Upstream requests made, and whether the last had tool calls disabled. */
  async function stops(conditions: unknown[], script = always): Promise<{ turns: number; disabled: boolean }> {
    agent.upstream.bodies.length = 0;
    agent.upstream.script = script;
    const { status } = await run({ stop_server_tools_when: conditions, max_tool_calls: 3 });
    expect(status).toBe(200);
    return { turns: agent.upstream.bodies.length, disabled: toolChoices().at(-1) === "none" };
  }

  test("step_count_is N stops after N steps (and overrides max_tool_calls)", async () => {
    expect(await stops([{ type: "step_count_is", step_count: 1 }])).toEqual({ turns: 2, disabled: true });
    expect(await stops([{ type: "step_count_is", step_count: 5 }])).toEqual({ turns: 6, disabled: true });
  });

  test("has_tool_call fires on the tool's type or its name, not on another tool", async () => {
    expect(await stops([{ type: "has_tool_call", tool_name: "service:datetime" }])).toEqual({ turns: 2, disabled: true });
    expect(await stops([{ type: "has_tool_call", tool_name: "datetime" }])).toEqual({ turns: 2, disabled: true });
    const twoSteps = callsFor(2, [{ name: "datetime" }]);
    expect(await stops([{ type: "has_tool_call", tool_name: "service:web_search" }], twoSteps)).toEqual({ turns: 3, disabled: false });
  });

  test("finish_reason_is fires on the turn's finish reason", async () => {
    expect(await stops([{ type: "finish_reason_is", reason: "tool_calls" }])).toEqual({ turns: 2, disabled: true });
    const twoSteps = callsFor(2, [{ name: "datetime" }]);
    expect(await stops([{ type: "finish_reason_is", reason: "length" }], twoSteps)).toEqual({ turns: 3, disabled: false });
  });

  // A model that makes 3 steps, then answers: 4 turns, the last with tools still enabled unless a condition fired.
  const threeSteps = callsFor(3, [{ name: "datetime" }]);

  test("max_tokens_used fires once the tokens used exceed it (120 per turn here), not when they equal it", async () => {
    expect(await stops([{ type: "max_tokens_used", max_tokens: 360 }], threeSteps)).toEqual({ turns: 4, disabled: false });
    expect(await stops([{ type: "max_tokens_used", max_tokens: 359 }], threeSteps)).toEqual({ turns: 4, disabled: true });
    expect(await stops([{ type: "max_tokens_used", max_tokens: 239 }], threeSteps)).toEqual({ turns: 3, disabled: true });
  });

  test("max_cost fires once the cost exceeds it ($0.00014 per turn here), not when it equals it", async () => {
    expect(await stops([{ type: "max_cost", max_cost_in_dollars: 0.00042 }], threeSteps)).toEqual({ turns: 4, disabled: false });
    expect(await stops([{ type: "max_cost", max_cost_in_dollars: 0.000419 }], threeSteps)).toEqual({ turns: 4, disabled: true });
    expect(await stops([{ type: "max_cost", max_cost_in_dollars: 0.000279 }], threeSteps)).toEqual({ turns: 3, disabled: true });
  });

  test("any one condition fires (OR)", async () => {
    expect(await stops([{ type: "step_count_is", step_count: 9 }, { type: "has_tool_call", tool_name: "datetime" }])).toEqual({ turns: 2, disabled: true });
  });
});
