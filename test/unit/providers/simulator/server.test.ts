import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSimulatorServer, type SimulatorServer } from "../../../../providers/simulator/server.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { drain } from "../helpers.ts";

let sim: SimulatorServer;
beforeAll(() => {
  sim = startSimulatorServer({ record: true, defaults: { output_tokens: 4 } });
});
afterAll(() => sim.stop());

const post = (body: unknown, path = "/chat/completions") =>
  fetch(`${sim.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k" }, body: typeof body === "string" ? body : JSON.stringify(body) });

async function chunks(body: Record<string, unknown>): Promise<string[]> {
  const response = await post({ model: "m", stream: true, ...body });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  if (!response.body) throw new Error("no body");
  return (await drain(parseSse(response.body))).map((e) => e.data);
}

describe("simulator server", () => {
  test("base URL includes /v1; GET /v1/models lists the simulator", async () => {
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}/v1`);
    const models = (await (await fetch(`${sim.url}/models`)).json()) as { object: string; data: Array<{ id: string }> };
    expect(models.object).toBe("list");
    expect(models.data[0]?.id).toBe("simulator");
  });

  test("non-streaming: an OpenAI-shaped completion with usage", async () => {
    const body = (await (await post({ model: "my-model", messages: [{ role: "user", content: "hi there" }] })).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "my-model",
      choices: [{ index: 0, message: { role: "assistant", content: expect.stringMatching(/^Simulated reply: \w+ \w+$/) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  test("response_format json_schema / json_object: the content is JSON built from the schema", async () => {
    const schema = { type: "object", properties: { city: { type: "string" }, rank: { type: "integer" } }, required: ["city", "rank"] };
    const reply = async (format: unknown) => {
      const body = (await (await post({ model: "m", messages: [{ role: "user", content: "hi" }], response_format: format })).json()) as { choices: Array<{ message: { content: string } }> };
      return JSON.parse(body.choices[0]!.message.content) as unknown;
    };
    expect(await reply({ type: "json_schema", json_schema: { name: "x", schema } })).toEqual({ city: "simulated", rank: 1 });
    expect(await reply({ type: "json_object" })).toEqual({ reply: "simulated" });
    const streamed = (await chunks({ messages: [{ role: "user", content: "hi" }], response_format: { type: "json_schema", json_schema: { name: "x", schema } } }))
      .filter((data) => data !== "[DONE]")
      .map((data) => (JSON.parse(data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? "")
      .join("");
    expect(JSON.parse(streamed)).toEqual({ city: "simulated", rank: 1 });
  });

  test("streaming: role on the first chunk, finish chunk, usage chunk only when asked, then [DONE]", async () => {
    const withUsage = await chunks({ messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true } });
    expect(withUsage.length).toBe(4 + 1 + 1 + 1);
    const first = JSON.parse(withUsage[0] ?? "{}") as { choices: Array<{ delta: Record<string, unknown> }> };
    expect(first.choices[0]?.delta).toEqual({ role: "assistant", content: "Simulated" });
    const usage = JSON.parse(withUsage[5] ?? "{}") as { choices: unknown[]; usage: { completion_tokens: number } };
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(4);
    expect(withUsage.at(-1)).toBe("[DONE]");
    const without = await chunks({ messages: [{ role: "user", content: "hi" }] });
    expect(without.length).toBe(4 + 1 + 1);
    expect(without.some((d) => d.includes('"usage"'))).toBe(false);
  });

  test("cut: the stream ends after N chunks without finish or [DONE]; a non-streaming body is truncated", async () => {
    const cut = await chunks({ messages: [{ role: "user", content: "[sim cut=2]" }], stream_options: { include_usage: true } });
    expect(cut.length).toBe(2);
    expect(cut.some((d) => d.includes("finish_reason\":\"stop"))).toBe(false);
    const text = await (await post({ model: "m", messages: [{ role: "user", content: "[sim cut=1]" }] })).text();
    expect(() => JSON.parse(text)).toThrow();
  });

  test("errors: directive status, bad JSON, bad body, unknown route", async () => {
    const failed = await post({ model: "m", messages: [{ role: "user", content: "[sim status=529]" }] });
    expect(failed.status).toBe(529);
    expect(await failed.json()).toEqual({ error: { message: "Simulated upstream failure (HTTP 529)", type: "simulator_error", param: null, code: null } });
    expect((await post("{nope")).status).toBe(400);
    expect((await post({ model: "m" })).status).toBe(400);
    expect((await post({}, "/completions")).status).toBe(404);
  });

  test("records path, headers and body", async () => {
    const before = sim.requests.length;
    await post({ model: "rec", messages: [{ role: "user", content: "x" }] });
    const recorded = sim.requests[before];
    expect(recorded?.path).toBe("/v1/chat/completions");
    expect(recorded?.headers.authorization).toBe("Bearer k");
    expect(recorded?.body).toEqual({ model: "rec", messages: [{ role: "user", content: "x" }] });
  });

  test("latency delays the reply", async () => {
    const started = Date.now();
    await post({ model: "m", messages: [{ role: "user", content: "[sim latency=60]" }] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  test("500 concurrent slow streams complete, paced by the chunk delay", async () => {
    const completedBefore = sim.stats.completed;
    const started = Date.now();
    const all = await Promise.all(Array.from({ length: 500 }, (_, i) => chunks({ messages: [{ role: "user", content: `n${i} [sim tokens=5 delay=20]` }] })));
    expect(all.every((c) => c.at(-1) === "[DONE]" && c.length === 7)).toBe(true);
    expect(sim.stats.completed - completedBefore).toBe(500);
    // 5 delays of 20 ms each per stream, run concurrently rather than one after another.
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
