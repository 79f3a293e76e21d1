import { describe, expect, test } from "bun:test";
import { parseDirective } from "../../../../providers/simulator/directive.ts";
import { simulate, type SimRequest } from "../../../../providers/simulator/engine.ts";
import { argumentsFromSchema, MAX_CHARS, MAX_VALUES, valueFromSchema } from "../../../../providers/simulator/schema-args.ts";
import { countPromptTokens, countTokens } from "../../../../providers/simulator/tokenizer.ts";

const user = (text: string): SimRequest => ({ messages: [{ role: "user", texts: [text] }], tools: [] });
const joined = (request: SimRequest, options = {}) => {
  const plan = simulate(request, options);
  return plan.pieces.map((p) => ("text" in p ? p.text : "")).join("");
};

describe("tokenizer", () => {
  test("one token per whitespace-separated word; 4 per message", () => {
    expect(countTokens("  Simulated reply:\talpha\n bravo ")).toBe(4);
    expect(countTokens("")).toBe(0);
    expect(countPromptTokens([{ texts: ["a b", "c"] }, { texts: [] }])).toBe(3 + 4 + 4);
  });
});

describe("simulate", () => {
  test("is deterministic: same prompt, same plan; different prompt, different words", () => {
    expect(simulate(user("hello world"))).toEqual(simulate(user("hello world")));
    expect(simulate(user("hello world")).text).not.toBe(simulate(user("goodbye world")).text);
  });

  test("default reply: 16 tokens starting with 'Simulated reply:'; exact usage", () => {
    const plan = simulate({ messages: [{ role: "system", texts: ["Be brief."] }, { role: "user", texts: ["hello there world"] }], tools: [] });
    expect(plan.text.startsWith("Simulated reply: ")).toBe(true);
    expect(countTokens(plan.text)).toBe(16);
    expect(plan.usage).toEqual({ promptTokens: 2 + 4 + 3 + 4, completionTokens: 16, reasoningTokens: 0 });
    expect(plan.finishReason).toBe("stop");
    expect(plan.pieces.length).toBe(16);
  });

  test("pieces concatenate to the text; tokens_per_chunk groups words", () => {
    const plan = simulate(user("x"), { output_tokens: 7, tokens_per_chunk: 3 });
    expect(plan.pieces.map((p) => ("text" in p ? p.text : "")).join("")).toBe(plan.text);
    expect(plan.pieces.length).toBe(3);
    expect(joined(user("x"), { output_tokens: 7 })).toBe(plan.text);
  });

  test("max tokens cut the reply: finish length with exact counts", () => {
    const plan = simulate({ ...user("x [sim tokens=10 reasoning=3]"), maxTokens: 5 });
    expect(plan.usage).toEqual({ promptTokens: 4 + 4, completionTokens: 5, reasoningTokens: 3 });
    expect(countTokens(plan.text)).toBe(2);
    expect(plan.finishReason).toBe("length");
    expect(simulate({ ...user("x"), maxTokens: 16 }).finishReason).toBe("stop");
  });

  test("reasoning tokens come first", () => {
    const plan = simulate(user("x [sim reasoning=4 tokens=3]"));
    expect(plan.pieces.map((p) => p.kind)).toEqual(["reasoning", "reasoning", "reasoning", "reasoning", "text", "text", "text"]);
    expect(countTokens(plan.reasoning)).toBe(4);
    expect(plan.usage.completionTokens).toBe(7);
  });

  test("tools: calls the first tool with schema-derived arguments", () => {
    const plan = simulate({
      ...user("weather?"),
      tools: [
        { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, unit: { type: "string", enum: ["c", "f"] } }, required: ["city", "days", "unit"] } },
        { name: "other" },
      ],
    });
    expect(plan.toolCall).toEqual({ id: expect.stringMatching(/^call_sim_[0-9a-f]{8}$/), name: "get_weather", arguments: '{"city":"simulated","days":1,"unit":"c"}' });
    expect(plan.finishReason).toBe("tool_calls");
    expect(plan.usage.completionTokens).toBe(2);
    expect(plan.pieces.filter((p) => p.kind === "tool-args").map((p) => ("text" in p ? p.text : "")).join("")).toBe(plan.toolCall?.arguments ?? "");
  });

  test("tools: named choice picks that tool, none disables calling", () => {
    const tools = [{ name: "a" }, { name: "b" }];
    expect(simulate({ ...user("x"), tools, toolChoice: { name: "b" } }).toolCall?.name).toBe("b");
    expect(simulate({ ...user("x"), tools, toolChoice: "required" }).toolCall?.name).toBe("a");
    expect(simulate({ ...user("x"), tools, toolChoice: "none" }).toolCall).toBeUndefined();
  });

  test("after tool results the reply quotes them and no tool is called", () => {
    const plan = simulate({
      messages: [
        { role: "user", texts: ["weather?"] },
        { role: "assistant", texts: ["get_weather", "{}"] },
        { role: "tool", texts: ['{"temp": 21}'] },
        { role: "tool", texts: ["sunny"] },
      ],
      tools: [{ name: "get_weather" }],
    });
    expect(plan.toolCall).toBeUndefined();
    expect(plan.text).toBe('Tool result: {"temp": 21} sunny');
    expect(plan.usage.completionTokens).toBe(5);
  });

  test("directives: status fails, latency/delay/cut set timing, options are defaults", () => {
    expect(simulate(user("x [sim status=503]")).failure).toEqual({ status: 503, message: "Simulated upstream failure (HTTP 503)" });
    expect(simulate(user("x"), { fail_status: 429, fail_message: "busy" }).failure).toEqual({ status: 429, message: "busy" });
    expect(simulate(user("x [sim latency=50 delay=5 cut=2]"), { latency_ms: 1 }).timing).toEqual({ latencyMs: 50, chunkDelayMs: 5, cutAfter: 2 });
    expect(simulate(user("x"), { latency_ms: 1, chunk_delay_ms: 2 }).timing).toEqual({ latencyMs: 1, chunkDelayMs: 2 });
  });

  test("only the last user message's directive applies", () => {
    const plan = simulate({ messages: [{ role: "user", texts: ["[sim status=500]"] }, { role: "assistant", texts: ["ok"] }, { role: "user", texts: ["again [sim tokens=3]"] }], tools: [] });
    expect(plan.failure).toBeUndefined();
    expect(countTokens(plan.text)).toBe(3);
  });

  test("a malformed directive fails with 400", () => {
    expect(simulate(user("[sim tokenz=3]")).failure).toEqual({ status: 400, message: 'unknown simulator directive key "tokenz"' });
    expect(simulate(user("[sim tokens=-1]")).failure?.status).toBe(400);
    expect(simulate(user("[sim status=200]")).failure?.status).toBe(400);
  });
});

describe("parseDirective", () => {
  test("parses every key", () => {
    expect(parseDirective("a [sim tokens=1 latency=2 delay=3 chunk=4 reasoning=5 status=503 cut=6] b")).toEqual({
      tokens: 1,
      latency: 2,
      delay: 3,
      chunk: 4,
      reasoning: 5,
      status: 503,
      cut: 6,
    });
    expect(parseDirective("no directive [simulate]")).toEqual({});
    expect(parseDirective("[sim]")).toEqual({});
  });
});

describe("argumentsFromSchema", () => {
  test("required only, or all when none required; every type", () => {
    const properties = {
      s: { type: "string" },
      n: { type: "number" },
      i: { type: "integer" },
      b: { type: "boolean" },
      a: { type: "array", items: { type: "string" } },
      o: { type: "object" },
      nullable: { type: ["null", "string"] },
      k: { const: "fixed" },
    };
    expect(argumentsFromSchema({ type: "object", properties })).toEqual({ s: "simulated", n: 1, i: 1, b: true, a: [], o: {}, nullable: "simulated", k: "fixed" });
    expect(argumentsFromSchema({ type: "object", properties, required: ["b"] })).toEqual({ b: true });
    expect(argumentsFromSchema(undefined)).toEqual({});
  });
});

describe("schema values (nested, referenced, unions, bounds)", () => {
  test("nested objects are filled, $ref into $defs is followed, anyOf takes its first non-null branch", () => {
    const schema = {
      type: "object",
      properties: {
        person: { $ref: "#/$defs/Person" },
        tags: { type: "array", items: { type: "string" }, minItems: 2 },
        note: { anyOf: [{ type: "null" }, { type: "string", maxLength: 4 }] },
        score: { type: "number", minimum: 0, maximum: 0.5 },
        code: { type: "string", minLength: 12 },
      },
      required: ["person", "tags", "note", "score", "code"],
      additionalProperties: false,
      $defs: { Person: { type: "object", properties: { name: { type: "string" }, age: { type: "integer", exclusiveMinimum: 17 } }, required: ["name", "age"] } },
    };
    expect(valueFromSchema(schema)).toEqual({ person: { name: "simulated", age: 18 }, tags: ["simulated", "simulated"], note: "simu", score: 0.5, code: "simulatedxxx" });
  });

  test("allOf merges its branches; a self-reference stops instead of recursing forever", () => {
    expect(valueFromSchema({ allOf: [{ type: "object", properties: { a: { type: "boolean" } }, required: ["a"] }, { properties: { b: { const: 2 } }, required: ["b"] }] })).toEqual({ a: true, b: 2 });
    const loop = { type: "object", properties: { next: { $ref: "#" } }, required: ["next"] };
    expect(JSON.stringify(valueFromSchema(loop)).length).toBeLessThan(1000);
  });

  test("a schema asking for more than the budget gets a bounded value at once (minItems, minLength, doubling references)", () => {
    const many = valueFromSchema({ type: "array", items: { type: "string" }, minItems: 100_000_000 }) as string[];
    expect(many.length).toBe(MAX_VALUES - 1);
    const long = valueFromSchema({ type: "string", minLength: 1_000_000_000 }) as string;
    expect(long.length).toBe(MAX_CHARS);
    // Two self-references per level: 2^32 values at the depth cap without the budget.
    const tree = { $defs: { n: { type: "object", properties: { l: { $ref: "#/$defs/n" }, r: { $ref: "#/$defs/n" } }, required: ["l", "r"] } }, $ref: "#/$defs/n" };
    const text = JSON.stringify(valueFromSchema(tree));
    expect((text.match(/"l"/g) ?? []).length).toBeLessThan(MAX_VALUES);
    // Within the budget nothing changes: a real schema's bounds are still met exactly.
    expect((valueFromSchema({ type: "array", items: { type: "integer" }, minItems: 500 }) as number[]).length).toBe(500);
  });
});

describe("structured replies", () => {
  const schema = { type: "object", properties: { city: { type: "string" }, population: { type: "integer", minimum: 1000 } }, required: ["city", "population"] };

  test("json_schema: the reply is JSON of the schema, in pieces that join to it, counted as output tokens", () => {
    const request: SimRequest = { ...user("Describe Paris [sim tokens=50]"), output: { type: "json_schema", schema } };
    const plan = simulate(request);
    expect(JSON.parse(plan.text)).toEqual({ city: "simulated", population: 1000 });
    expect(joined(request)).toBe(plan.text);
    expect(plan.pieces.length).toBeGreaterThan(1);
    expect(plan.finishReason).toBe("stop");
    expect(plan.usage.completionTokens).toBe(countTokens(plan.text));
  });

  test("json_object: a JSON object; a tool call still wins when the model calls a tool", () => {
    expect(JSON.parse(simulate({ ...user("hi"), output: { type: "json_object" } }).text)).toEqual({ reply: "simulated" });
    const withTool = simulate({ ...user("hi"), tools: [{ name: "f" }], output: { type: "json_object" } });
    expect(withTool.toolCall?.name).toBe("f");
  });

  test("reasoning that uses up max_tokens leaves no half document: empty reply, finish length", () => {
    const plan = simulate({ ...user("hi [sim reasoning=5]"), maxTokens: 3, output: { type: "json_schema", schema } });
    expect(plan.text).toBe("");
    expect(plan.finishReason).toBe("length");
  });
});
