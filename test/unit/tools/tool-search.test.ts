/** service:tool_search: regex and BM25 search over the request's deferred function tools, reveal, limits, schemas. */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import toolSearch, { MAX_TOOL_TEXT, searchableText } from "../../../tools/tool-search.ts";
import { bm25, tokenize } from "../../../tools/tool-search/bm25.ts";
import type { Tool } from "../../../core/model/request.ts";
import type { ToolRunContext } from "../../../core/registry/tool.ts";
import { toolRunContext } from "./run-context.ts";

type FunctionTool = Extract<Tool, { kind: "function" }>;
const deferred = (name: string, description?: string, parameters?: Record<string, unknown>): FunctionTool => ({
  kind: "function",
  name,
  ...(description === undefined ? {} : { description }),
  ...(parameters === undefined ? {} : { parameters }),
  deferLoading: true,
});

const TOOLS: Tool[] = [
  { kind: "function", name: "lookup_weather", description: "Weather, loaded up front (not deferred)" },
  deferred("get_weather", "Current weather for a city", { type: "object", properties: { city: { type: "string", description: "City name" } } }),
  deferred("get_stock_price", "Latest trade price", { type: "object", properties: { ticker: { type: "string", description: "Exchange symbol" } } }),
  deferred("send_email", "Sends an email", {
    type: "object",
    properties: {
      message: { type: "object", properties: { recipient: { type: "string", description: "Mailbox address" } } },
      attachments: { type: "array", items: { type: "object", properties: { filename: { type: "string" } } } },
    },
  }),
  deferred("noDescription"),
  { kind: "server", type: "service:tool_search" },
];

function ctx(tools: readonly Tool[], parameters: Record<string, unknown> = {}): ToolRunContext & { revealed: string[][] } {
  const revealed: string[][] = [];
  return { ...toolRunContext({ parameters, tools, reveal: (names) => void revealed.push([...names]) }), revealed };
}

interface Result {
  query: string;
  tools: Array<{ name: string; description: string }>;
}
async function search(args: Record<string, unknown>, parameters: Record<string, unknown> = {}, tools: readonly Tool[] = TOOLS) {
  const context = ctx(tools, parameters);
  const result = (await toolSearch.run(args, context)) as Result;
  return { result, names: result.tools.map((t) => t.name), revealed: context.revealed };
}
async function failure(args: Record<string, unknown>, tools: readonly Tool[] = TOOLS) {
  const context = ctx(tools);
  const error = await toolSearch.run(args, context).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  expect(context.revealed).toEqual([]);
  return (error as Error).message;
}

describe("service:tool_search regex mode", () => {
  test("finds deferred tools only, reveals them and returns {query, tools:[{name, description}]}", async () => {
    const { result, revealed } = await search({ query: "weather" });
    expect(result).toEqual({ query: "weather", tools: [{ name: "get_weather", description: "Current weather for a city" }] });
    expect(revealed).toEqual([["get_weather"]]);
  });

  test("is case-insensitive and a real regular expression", async () => {
    expect((await search({ query: "WEATHER" })).names).toEqual(["get_weather"]);
    expect((await search({ query: "^get_" })).names).toEqual(["get_weather", "get_stock_price"]);
    expect((await search({ query: "stock|e-?mail" })).names).toEqual(["get_stock_price", "send_email"]);
    expect((await search({ query: "price$" })).names).toEqual(["get_stock_price"]);
  });

  test("searches argument names and descriptions, nested ones included", async () => {
    expect((await search({ query: "ticker" })).names).toEqual(["get_stock_price"]);
    expect((await search({ query: "exchange symbol" })).names).toEqual(["get_stock_price"]);
    expect((await search({ query: "recipient" })).names).toEqual(["send_email"]);
    expect((await search({ query: "mailbox" })).names).toEqual(["send_email"]);
    expect((await search({ query: "filename" })).names).toEqual(["send_email"]);
  });

  test("fields are separate lines: `.` does not run from one into the next", async () => {
    expect((await search({ query: "get_weather.*Current" })).names).toEqual([]);
    expect((await search({ query: "get_weather\\nCurrent" })).names).toEqual(["get_weather"]);
    expect((await search({ query: "^ticker$" })).names).toEqual(["get_stock_price"]);
  });

  test("a tool without a description is found by name and reported with an empty description", async () => {
    expect((await search({ query: "nodescription" })).result.tools).toEqual([{ name: "noDescription", description: "" }]);
  });

  test("max_results (default 5) caps the tools returned and revealed", async () => {
    const many = Array.from({ length: 8 }, (_, i) => deferred(`tool_${i}`, "does things"));
    const byDefault = await search({ query: "tool_" }, {}, many);
    expect(byDefault.names).toEqual(["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
    expect(byDefault.revealed).toEqual([byDefault.names]);
    const two = await search({ query: "tool_" }, { max_results: 2 }, many);
    expect(two.names).toEqual(["tool_0", "tool_1"]);
    expect(two.revealed).toEqual([["tool_0", "tool_1"]]);
  });

  test("no match returns no tools and reveals nothing", async () => {
    const { result, revealed } = await search({ query: "calendar" });
    expect(result).toEqual({ query: "calendar", tools: [] });
    expect(revealed).toEqual([]);
  });

  test("a bad pattern is an error result, not a request failure", async () => {
    expect(await failure({ query: "(unclosed" })).toMatch(/^invalid regular expression: /);
    expect(await failure({ query: "(a)\\1" })).toBe("invalid regular expression: backreferences are not supported");
    expect(await failure({ query: "(?=weather)" })).toBe("invalid regular expression: lookahead and lookbehind are not supported");
  });

  test("the query is at most 200 characters", async () => {
    expect(await failure({ query: "a".repeat(201) })).toBe("query is 201 characters; at most 200 are allowed");
    expect((await search({ query: "a".repeat(200) })).names).toEqual([]);
  });

  test("catastrophic patterns for a backtracking engine run in linear time", async () => {
    const tools = [deferred("victim", "a".repeat(MAX_TOOL_TEXT)), deferred("other", "x".repeat(MAX_TOOL_TEXT))];
    const started = performance.now();
    expect((await search({ query: "(a+)+b" }, {}, tools)).names).toEqual([]);
    expect((await search({ query: "(a|aa)*$c" }, {}, tools)).names).toEqual([]);
    expect((await search({ query: ".*.*.*.*y" }, {}, tools)).names).toEqual([]);
    expect((await search({ query: "(a+)+$" }, {}, tools)).names).toEqual(["victim"]);
    // JavaScript's RegExp needs minutes to hours for the first three over 4 KiB; the automaton a few milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("a search over its step budget is an error result", async () => {
    const tools = Array.from({ length: 40 }, (_, i) => deferred(`bulk_${i}`, "abcdefghij".repeat(MAX_TOOL_TEXT / 10)));
    expect(await failure({ query: "[a-z]{1,400}@" }, tools)).toBe("the regular expression is too expensive to run over these tools; use a simpler pattern");
  });

  test("invalid arguments are error results", async () => {
    expect(await failure({})).toMatch(/^invalid arguments \(query\)/);
    expect(await failure({ query: "" })).toMatch(/^invalid arguments \(query\)/);
    expect(await failure({ query: "x", mode: "fuzzy" })).toMatch(/^invalid arguments \(mode\)/);
    expect(await failure({ query: "x", limit: 3 })).toMatch(/^invalid arguments/);
  });
});

describe("service:tool_search bm25 mode", () => {
  test("ranks by BM25 over the same words (snake_case split), best first", async () => {
    const tools = [
      deferred("get_stock_price", "Latest trade price of a stock"),
      deferred("stock_news", "Headlines"),
      deferred("get_weather", "Current weather"),
    ];
    const { names, revealed } = await search({ query: "stock price", mode: "bm25" }, {}, tools);
    expect(names).toEqual(["get_stock_price", "stock_news"]);
    expect(revealed).toEqual([names]);
  });

  test("the query is words, not a pattern: no regex errors, no words in common finds nothing", async () => {
    expect((await search({ query: "(weather", mode: "bm25" })).names).toEqual(["get_weather"]);
    expect((await search({ query: "calendar", mode: "bm25" })).names).toEqual([]);
    expect((await search({ query: "((", mode: "bm25" })).names).toEqual([]);
  });

  test("argument names and descriptions count too", async () => {
    expect((await search({ query: "ticker", mode: "bm25" })).names).toEqual(["get_stock_price"]);
  });

  test("tokenize splits on punctuation and camelCase and lower-cases", () => {
    expect(tokenize("getWeatherNow snake_case-HTTP2 Ünïcode")).toEqual(["get", "weather", "now", "snake", "case", "http2", "ünïcode"]);
  });

  test("bm25: more occurrences and shorter documents rank higher; a rarer word weighs more; ties keep input order", () => {
    const docs = ["apple banana kiwi", "apple apple kiwi", "apple", "durian"];
    // 1 beats 0 (same length, apple twice); 2 beats both (apple once, but a third of their length).
    expect(bm25("apple", docs).map((r) => r.index)).toEqual([2, 1, 0]);
    expect(bm25("banana apple", docs)[0]!.index).toBe(0);
    expect(bm25("durian", docs).map((r) => r.index)).toEqual([3]);
    expect(bm25("same", ["same", "same"]).map((r) => r.index)).toEqual([0, 1]);
    expect(bm25("", docs)).toEqual([]);
  });
});

describe("service:tool_search schemas", () => {
  test("searchable text: name, description, argument names and descriptions, one per line, capped", () => {
    expect(searchableText(TOOLS[3] as FunctionTool)).toBe("send_email\nSends an email\nmessage\nrecipient\nMailbox address\nattachments\nfilename");
    expect(searchableText(deferred("long", "z".repeat(MAX_TOOL_TEXT * 2))).length).toBe(MAX_TOOL_TEXT);
  });

  test("parametersSchema: max_results is an integer 1-50, nothing else", () => {
    const check = TypeCompiler.Compile(toolSearch.parametersSchema as TSchema);
    expect(check.Check({})).toBe(true);
    expect(check.Check({ max_results: 1 })).toBe(true);
    expect(check.Check({ max_results: 50 })).toBe(true);
    expect(check.Check({ max_results: 0 })).toBe(false);
    expect(check.Check({ max_results: 51 })).toBe(false);
    expect(check.Check({ max_results: 1.5 })).toBe(false);
    expect(check.Check({ max_results: 5, mode: "bm25" })).toBe(false);
  });

  test("the model sees a required query (≤ 200) and an optional mode regex|bm25", () => {
    const schema = JSON.parse(JSON.stringify(toolSearch.argumentsSchema)) as Record<string, unknown>;
    expect(schema).toMatchObject({
      type: "object",
      required: ["query"],
      additionalProperties: false,
      properties: { query: { type: "string", maxLength: 200 }, mode: { anyOf: [{ const: "regex" }, { const: "bm25" }] } },
    });
  });
});
