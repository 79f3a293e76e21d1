/** providers/simulator/retrieval.ts: deterministic unit vectors of the asked size; rerank by shared query words. */
import { expect, test } from "bun:test";
import { simulatedVector, simulatorEmbed, simulatorRerank } from "../../../../providers/simulator/retrieval.ts";
import { fakeHelpers as createModuleHelpers } from "../helpers.ts";

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

test("the same input gives the same unit vector; another input another; texts and token ids apart", () => {
  const a = simulatedVector("hello", 256);
  expect(a).toHaveLength(256);
  expect(norm(a)).toBeCloseTo(1, 12);
  expect(simulatedVector("hello", 256)).toEqual(a);
  expect(simulatedVector("hello!", 256)).not.toEqual(a);
  expect(simulatedVector([1, 2], 8)).not.toEqual(simulatedVector("1,2", 8));
  expect(norm(simulatedVector("x", 3))).toBeCloseTo(1, 12);
});

const target = { providerId: "simulator", baseUrl: "simulator://local", apiKey: undefined, upstreamModel: "embedding", headers: {}, options: {} };

test("embed: one vector per input, dimensions honoured, one token per word", async () => {
  const helpers = createModuleHelpers();
  const result = await simulatorEmbed({ request: { inputs: ["a b", "c"], dimensions: 4 }, target, signal: new AbortController().signal, helpers, warnings: [] });
  expect(result.vectors.map((v) => v.length)).toEqual([4, 4]);
  expect(result.inputTokens).toBe(3);
});

test("rerank: the share of the query's words, ties in document order, top_n", async () => {
  const helpers = createModuleHelpers();
  const call = { request: { query: "red apple", documents: ["pear", "red", "apple red", "red car"], topN: 3 }, target, signal: new AbortController().signal, helpers, warnings: [] };
  const result = await simulatorRerank(call);
  expect(result.results).toEqual([
    { index: 2, score: 1 },
    { index: 1, score: 0.5 },
    { index: 3, score: 0.5 },
  ]);
});

test("fail_status fails as an HTTP upstream with that status would", async () => {
  const helpers = createModuleHelpers();
  const failing = { ...target, options: { fail_status: 503 } };
  const failure = await simulatorEmbed({ request: { inputs: ["a"] }, target: failing, signal: new AbortController().signal, helpers, warnings: [] }).catch((error: unknown) => error);
  // The shared mapping of an upstream's 503: a retryable 502 (routing falls back), as the chat simulator's.
  expect([(failure as { status?: number }).status, (failure as { retryable?: boolean }).retryable]).toEqual([502, true]);
});

test("a request past the simulator's numbers cap is a 400 naming dimensions, not a reply of hundreds of megabytes", async () => {
  const helpers = createModuleHelpers();
  const inputs = new Array<string>(2048).fill("x");
  expect((await simulatorEmbed({ request: { inputs, dimensions: 512 }, target, signal: new AbortController().signal, helpers, warnings: [] })).vectors).toHaveLength(2048);
  const failure = await simulatorEmbed({ request: { inputs, dimensions: 513 }, target, signal: new AbortController().signal, helpers, warnings: [] }).catch((error: unknown) => error);
  expect([(failure as { status?: number }).status, (failure as Error).message]).toEqual([400, "The simulator makes at most 1048576 numbers per request (inputs × dimensions); this one asks 2048 × 513"]);
});
