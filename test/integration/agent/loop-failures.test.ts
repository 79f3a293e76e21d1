/**
 * What goes wrong in a loop, seen from outside: a tool that fails or hangs gives the model an error result and the
 * request still answers; calls of one step run concurrently up to the cap; a client that leaves cancels the running
 * tools and no further turn is made; bad declarations are 400s naming the field; a turn that also calls a client
 * function ends the loop with everything executed so far; and a key's credit limit is never overspent by loops.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { seen } from "../../fixtures/extensions/test-tools.ts";
import { ADMIN_KEY } from "../../support/gateway.ts";
import { COMPLETION_TOKENS, PROMPT_TOKENS, type Script } from "../../support/scripted-model.ts";
import { callsFor, messagesOf, MODEL, PRICING, startAgentGateway, type AgentGateway } from "./setup.ts";

let agent: AgentGateway;

beforeAll(async () => {
  agent = await startAgentGateway(callsFor(1, [{ name: "datetime" }]), { agent_loop: { tool_concurrency: 2, tool_timeout_ms: 300 } });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.upstream.bodies.length = 0;
});

type Json = Record<string, any>;

async function respond(body: Json, key?: string): Promise<{ status: number; body: Json }> {
  const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "go", ...body }, ...(key ? { key } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("failing tools", () => {
  test("a tool that throws: the model gets {error}, the item says failed, the request answers", async () => {
    agent.upstream.script = callsFor(1, [{ name: "test_fail" }], "Sorry, it failed.");
    const { status, body } = await respond({ tools: [{ type: "service:test_fail" }] });
    expect(status).toBe(200);
    expect(JSON.parse(String(messagesOf(agent.upstream, 1).at(-1)!.content))).toEqual({ error: "the backend said no" });
    expect(body.output[0]).toMatchObject({ type: "service:test_fail", status: "failed", error: "the backend said no" });
    expect(body.output.at(-1).content[0].text).toBe("Sorry, it failed.");
  });

  test("a tool that never answers times out (agent_loop.tool_timeout_ms) and the loop goes on", async () => {
    agent.upstream.script = callsFor(1, [{ name: "test_ignore_signal" }]);
    const started = Date.now();
    const { status, body } = await respond({ tools: [{ type: "service:test_ignore_signal" }] });
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(body.output[0]).toMatchObject({ status: "failed", error: "timed out after 300 ms" });
  });

  test("a tool whose own limit is longer than agent_loop.tool_timeout_ms gets that long (plus a margin)", async () => {
    agent.upstream.script = callsFor(1, [{ name: "test_sleep", args: { ms: 500, own_limit_ms: 600 } }]);
    const { body } = await respond({ tools: [{ type: "service:test_sleep" }] });
    expect(body.output[0]).toMatchObject({ type: "service:test_sleep", status: "completed", slept: 500 });
  });

  test("the calls of one step run concurrently, at most agent_loop.tool_concurrency at a time", async () => {
    seen.maxRunning = 0;
    const before = seen.sleeps;
    agent.upstream.script = callsFor(1, Array.from({ length: 5 }, () => ({ name: "test_sleep", args: { ms: 40 } })));
    const { body } = await respond({ tools: [{ type: "service:test_sleep" }] });
    expect(seen.sleeps - before).toBe(5);
    expect(seen.maxRunning).toBe(2);
    expect(body.output.filter((item: Json) => item.type === "service:test_sleep" && item.status === "completed")).toHaveLength(5);
    expect(body.usage.server_tool_use_details).toMatchObject({ tool_calls_requested: 5, tool_calls_executed: 5 });
  });

  test("a client that leaves mid-loop cancels the running tool; no further turn is made", async () => {
    agent.upstream.script = callsFor(1, [{ name: "test_sleep", args: { ms: 60_000 } }]);
    const cancelledBefore = seen.cancelled;
    const controller = new AbortController();
    const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "go", stream: true, tools: [{ type: "service:test_sleep" }] }, signal: controller.signal });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("service:test_sleep")) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    for (let i = 0; i < 100 && seen.cancelled === cancelledBefore; i++) await Bun.sleep(10);
    expect(seen.cancelled).toBe(cancelledBefore + 1);
    await Bun.sleep(50);
    expect(agent.upstream.bodies).toHaveLength(1);
  });
});

describe("declarations", () => {
  test("an unknown service: tool is a 400 naming the field, before any upstream call", async () => {
    const { status, body } = await respond({ tools: [{ type: "function", name: "f", parameters: {} }, { type: "service:nope" }] });
    expect(status).toBe(400);
    expect(body.error.message).toContain("tools[1].type");
    expect(body.error.message).toContain("service:nope");
    expect(agent.upstream.bodies).toHaveLength(0);
  });

  test("a parameter the tool does not define is a 400 naming it", async () => {
    const { status, body } = await respond({ tools: [{ type: "service:datetime", parameters: { colour: "red" } }] });
    expect(status).toBe(400);
    expect(body.error.message).toContain("tools[0].parameters");
    expect(body.error.message).toContain("colour");
  });
});

describe("a turn that also calls a client function", () => {
  const mixed: Script = (body) =>
    (body.messages as Json[]).at(-1)!.role === "tool" ? { text: "Sunny, and it is late." } : { calls: [{ name: "datetime", args: { timezone: "UTC" } }, { name: "get_weather", args: { city: "Paris" }, id: "call_weather" }] };
  const tools = [{ type: "service:datetime" }, { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];

  test("ends the loop: the client gets the executed call and its pending function call, then continues as usual", async () => {
    agent.upstream.script = mixed;
    const first = await respond({ tools });
    expect(agent.upstream.bodies).toHaveLength(1);
    expect(first.body.output.map((item: Json) => item.type)).toEqual(["service:datetime", "function_call"]);
    expect(first.body.output[1]).toMatchObject({ name: "get_weather", call_id: "call_weather" });
    const second = await respond({ tools, input: [{ role: "user", content: "go" }, ...first.body.output, { type: "function_call_output", call_id: "call_weather", output: "sunny" }] });
    expect(second.status).toBe(200);
    const sent = messagesOf(agent.upstream, 1);
    // The model sees its own two calls, both results (ours replayed from the item), then answers.
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"].slice(0, sent.length));
    expect(JSON.stringify(sent)).toContain("sunny");
    expect(JSON.stringify(sent)).toContain("UTC");
    expect(second.body.output.at(-1).content[0].text).toBe("Sunny, and it is late.");
  });
});

describe("priced tool work", () => {
  const turnCost = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;

  test("a tool's charge is billed with the turns: usage.cost is both turns plus each call's price", async () => {
    agent.upstream.script = callsFor(1, [{ name: "test_paid" }, { name: "test_paid" }]);
    const { status, body } = await respond({ tools: [{ type: "service:test_paid", parameters: { usd: 0.0125 } }] });
    expect(status).toBe(200);
    expect(body.output.filter((item: Json) => item.type === "service:test_paid" && item.status === "completed")).toHaveLength(2);
    expect(body.usage.cost).toBeCloseTo(2 * turnCost + 2 * 0.0125, 10);
  });

  test("a charge the key's limit cannot cover fails that call (the model is told), never the request, and is not billed", async () => {
    const created = (await (await agent.gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "no room for tools", limit: 0.01 } })).json()) as Json;
    agent.upstream.script = callsFor(1, [{ name: "test_paid" }], "Could not pay.");
    const { status, body } = await respond({ tools: [{ type: "service:test_paid", parameters: { usd: 5 } }], max_output_tokens: 50 }, created.key as string);
    expect(status).toBe(200);
    expect(body.output[0]).toMatchObject({ type: "service:test_paid", status: "failed" });
    expect(String(body.output[0].error)).toContain("Insufficient credits");
    expect(body.usage.cost).toBeLessThan(0.01);
  });
});

describe("credits", () => {
  test("concurrent loops on one key never spend past its limit; a loop cut short ends with its answer so far", async () => {
    const created = (await (await agent.gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "loop budget", limit: 0.002 } })).json()) as Json;
    const key = created.key as string;
    agent.upstream.script = callsFor(1000, [{ name: "datetime" }]);
    const replies = await Promise.all(Array.from({ length: 4 }, () => respond({ tools: [{ type: "service:datetime" }], max_output_tokens: 100 }, key)));
    for (const reply of replies) expect([200, 402]).toContain(reply.status);
    const answered = replies.filter((r) => r.status === 200);
    expect(answered.length).toBeGreaterThan(0);
    const charged = answered.reduce((sum, r) => sum + Number(r.body.usage.cost), 0);
    expect(charged).toBeLessThanOrEqual(0.002);
    // Every answered loop was cut short by the limit (the model never stops calling on its own).
    for (const reply of answered) expect(reply.body.output.some((item: Json) => item.type === "service:datetime")).toBe(true);
    await agent.gw.gateway.deps.ledger.flush();
    const me = ((await (await agent.gw.request("/key", { key })).json()) as Json).data;
    expect(me.usage).toBeCloseTo(charged, 12);
    expect(me.usage).toBeLessThanOrEqual(0.002);
  });
});
