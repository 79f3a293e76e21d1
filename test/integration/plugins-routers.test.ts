/**
 * The router plugins through HTTP: auto-router, auto-beta-router, pareto-router, jev-router and
 * switchyard-router against a scripted upstream serving five priced models with quality scores in the config. The
 * reply's `model` is the chosen one; `service_metadata` names the router's strategy, the model id asked for and why;
 * every limit of the lists at its boundary; the reservation of a key with a credit limit covers any model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";

type Json = Record<string, any>;
let upstream: ScriptedModel;
let gw: TestGateway;

const model = (id: string, prompt: number, completion: number, quality: Record<string, number>) => ({
  id: `acme/${id}`,
  upstream_model: id,
  pricing: { prompt, completion },
  context_length: 100_000,
  quality,
});

/** Blended prices rise from small to max, so their price percentiles are 0, 20, 40, 60 and 80: one per cost tier. */
const MODELS = [
  model("small", 0.0000001, 0.0000004, { general: 0.5, chat: 0.7, coding: 0.3 }),
  model("coder", 0.000001, 0.000002, { general: 0.6, coding: 0.95 }),
  model("mid", 0.000002, 0.000004, { general: 0.75, coding: 0.7 }),
  model("large", 0.00001, 0.00003, { general: 0.9, coding: 0.85, reasoning: 0.95 }),
  model("max", 0.00003, 0.00006, { general: 0.92, coding: 0.9 }),
];

beforeAll(async () => {
  upstream = startScriptedModel((body) => ({ text: `answer from ${String(body.model)}` }));
  gw = await startTestGateway({
    file: { providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: MODELS }] },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});
beforeEach(() => {
  upstream.bodies.length = 0;
  upstream.delayMs = 0;
  upstream.script = (body) => ({ text: `answer from ${String(body.model)}` });
});

async function chat(body: Json, key?: string): Promise<{ status: number; json: Json }> {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" }, ...(key ? { key } : {}) });
  return { status: res.status, json: (await res.json()) as Json };
}

const ask = (model: string, content: string, extra: Json = {}) => ({ model, messages: [{ role: "user", content }], ...extra });
const routerEntry = (json: Json, name: string) => (json.service_metadata?.pipeline as Json[] | undefined)?.find((e) => e.name === name);

describe("auto-router", () => {
  test("a coding prompt goes to the best coding model; the metadata says which router chose it and why", async () => {
    const { status, json } = await chat(ask("service/auto", "Fix this bug in my Python function:\n```python\ndef add(a, b):\n    return a - b\n```"));
    expect(status).toBe(200);
    expect(json.model).toBe("acme/coder");
    expect(upstream.bodies[0]!.model).toBe("coder");
    const meta = json.service_metadata;
    expect(meta.strategy).toBe("auto");
    expect(meta.requested).toBe("service/auto");
    expect(meta.summary).toStartWith("auto-router chose acme/coder: task coding");
    const entry = routerEntry(json, "auto-router")!;
    expect(entry).toMatchObject({ type: "plugin", strategy: "auto", requested: "service/auto", data: { task_type: "coding", resolved_to: "acme/coder", candidates: 5 } });
    expect(entry.data.fallback_models).toEqual(["acme/max", "acme/large"]);
  });

  test("cost_tier keeps the models of its price band: low is the cheapest, max the dearest", async () => {
    const cases: Array<[string, string]> = [["low", "acme/small"], ["medium", "acme/coder"], ["high", "acme/mid"], ["xhigh", "acme/large"], ["max", "acme/max"]];
    for (const [tier, expected] of cases) {
      const { json } = await chat(ask("service/auto", "Explain why the sky is blue", { plugins: [{ id: "auto-router", cost_tier: tier }] }));
      expect(json.model).toBe(expected);
      expect(routerEntry(json, "auto-router")!.data.cost_tier).toBe(tier);
    }
  });

  test("allowed_models with wildcards, excluded_models winning over them, and a 404 when they leave nothing", async () => {
    const allowed = await chat(ask("service/auto", "hello", { plugins: [{ id: "auto-router", allowed_models: ["acme/s*", "ACME/MID"] }] }));
    expect(allowed.json.model).toBe("acme/mid");
    const both = await chat(ask("service/auto", "hello", { plugins: [{ id: "auto-router", allowed_models: ["acme/*"], excluded_models: ["*/mid", "*/max", "*/large"] }] }));
    expect(both.json.model).toBe("acme/small");
    const none = await chat(ask("service/auto", "hello", { plugins: [{ id: "auto-router", allowed_models: ["acme/*"], excluded_models: ["acme/*"] }] }));
    expect(none.status).toBe(404);
    expect(none.json.error.message).toContain("No models match");
    expect(upstream.bodies.length).toBe(2);
  });

  test("pattern limits: 1,024 patterns pass, 1,025 are a 400; 65,536 characters in all pass, 65,537 are a 400", async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `acme/m${i}*`);
    expect((await chat(ask("service/auto", "hi", { plugins: [{ id: "auto-router", allowed_models: [...many(1023), "acme/small"] }] }))).json.model).toBe("acme/small");
    const over = await chat(ask("service/auto", "hi", { plugins: [{ id: "auto-router", allowed_models: [...many(1024), "acme/small"] }] }));
    expect(over.status).toBe(400);
    expect(over.json.error.message).toContain("plugins[0].allowed_models");
    // 64 patterns of 1,024 characters = 65,536; one more character is over.
    const long = (n: number, last: number) => [...Array.from({ length: n - 1 }, () => `${"x".repeat(1023)}*`), `acme/small${"*".repeat(last - 10)}`];
    const exact = await chat(ask("service/auto", "hi", { plugins: [{ id: "auto-router", allowed_models: long(64, 1024) }] }));
    expect(exact.status).toBe(200);
    expect(exact.json.model).toBe("acme/small");
    const beyond = await chat(ask("service/auto", "hi", { plugins: [{ id: "auto-router", excluded_models: [...long(64, 1024), "y"] }] }));
    expect(beyond.status).toBe(400);
    expect(beyond.json.error.message).toContain("plugins[0].excluded_models: at most 65536 characters in all, got 65537");
    const tooLong = await chat(ask("service/auto", "hi", { plugins: [{ id: "auto-router", allowed_models: ["a".repeat(1025)] }] }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error.message).toContain("plugins[0].allowed_models");
  });

  test("pin_model keeps the model that wrote the last assistant turn", async () => {
    const first = await chat(ask("service/auto", "Prove step by step that the square root of 2 is irrational"));
    expect(first.json.model).toBe("acme/large");
    const reply = first.json.choices[0].message.content as string;
    const followUp = {
      model: "service/auto",
      messages: [
        { role: "user", content: "Prove step by step that the square root of 2 is irrational" },
        { role: "assistant", content: reply },
        { role: "user", content: "hello again" },
      ],
    };
    expect((await chat(followUp)).json.model).toBe("acme/max"); // a chat turn on its own goes elsewhere
    const pinned = await chat({ ...followUp, plugins: [{ id: "auto-router", pin_model: true }] });
    expect(pinned.json.model).toBe("acme/large");
    expect(routerEntry(pinned.json, "auto-router")!.data.pinned).toBe(true);
  });

  test("a streamed reply is the chosen model's", async () => {
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const stream = await client.chat.completions.create({ model: "service/auto", stream: true, messages: [{ role: "user", content: "Write a SQL query joining two tables" }] });
    const models = new Set<string>();
    let text = "";
    for await (const chunk of stream) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    expect([...models]).toEqual(["acme/coder"]);
    expect(text).toBe("answer from coder");
  });

  test("another router's entry beside service/auto is ignored; the auto-router's own entry turned off leaves an unknown model", async () => {
    const { json } = await chat(ask("service/auto", "hello", { plugins: [{ id: "pareto-router", min_coding_score: 0.1 }] }));
    expect(json.service_metadata.strategy).toBe("auto");
    expect(routerEntry(json, "pareto-router")).toBeUndefined();
    const off = await chat(ask("service/auto", "hello", { plugins: [{ id: "auto-router", enabled: false }] }));
    expect(off.status).toBe(400);
    expect(off.json.error.metadata.availability.code).toBe("model_not_found");
  });

  test("the plugin entry alone (no model) runs the router too; through the Messages and Responses clients", async () => {
    const { json } = await chat({ messages: [{ role: "user", content: "Debug this TypeScript compile error" }], plugins: [{ id: "auto-router" }] });
    expect(json.model).toBe("acme/coder");
    const anthropic = new Anthropic({ apiKey: gw.inferenceKey, baseURL: gw.origin + "/api" });
    const message = await anthropic.messages.create({ model: "service/auto", max_tokens: 64, messages: [{ role: "user", content: "Refactor this JavaScript function" }] });
    expect(message.model).toBe("acme/coder");
    const openai = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const response = await openai.responses.create({ model: "service/auto", input: "Prove step by step that 17 is prime" });
    expect(response.model).toBe("acme/large");
  });

  test("a key with a credit limit reserves for the dearest model a router may choose", async () => {
    const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "tight", limit: 0.01 } });
    const { key } = (await created.json()) as { key: string };
    // 4,096 output tokens at acme/max's 0.00006 is 0.25 USD: more than the limit, whichever model would answer.
    const refused = await chat(ask("service/auto", "hello", { plugins: [{ id: "auto-router", cost_tier: "low" }] }), key);
    expect(refused.status).toBe(402);
    const bounded = await chat(ask("service/auto", "hello", { max_tokens: 50, plugins: [{ id: "auto-router", cost_tier: "low" }] }), key);
    expect(bounded.status).toBe(200);
    expect(bounded.json.model).toBe("acme/small");
  });
});

describe("auto-beta-router", () => {
  test("cost_quality_tradeoff: 0 ranks by quality alone, the default 9 favours the cheaper; 10 is accepted, 11 a 400", async () => {
    const pick = async (tradeoff?: number) => (await chat(ask("service/auto-beta", "hello", tradeoff === undefined ? {} : { plugins: [{ id: "auto-beta-router", cost_quality_tradeoff: tradeoff }] }))).json;
    expect((await pick(0)).model).toBe("acme/max");
    const byDefault = await pick();
    expect(byDefault.model).toBe("acme/small");
    expect(routerEntry(byDefault, "auto-beta-router")!.data.cost_quality_tradeoff).toBe(9);
    expect((await pick(10)).model).toBe("acme/small");
    const over = await chat(ask("service/auto-beta", "hello", { plugins: [{ id: "auto-beta-router", cost_quality_tradeoff: 11 }] }));
    expect(over.status).toBe(400);
    expect(over.json.error.message).toContain("plugins[0].cost_quality_tradeoff");
  });

  test("cost_tier takes precedence over the trade-off", async () => {
    const { json } = await chat(ask("service/auto-beta", "hello", { plugins: [{ id: "auto-beta-router", cost_tier: "max", cost_quality_tradeoff: 10 }] }));
    expect(json.model).toBe("acme/max");
  });
});

describe("pareto-router", () => {
  test("the cheapest frontier model of the min_coding_score tier, with same-tier fallbacks", async () => {
    const high = await chat(ask("service/pareto-code", "write a parser"));
    expect(high.json.model).toBe("acme/coder");
    const entry = routerEntry(high.json, "pareto-router")!;
    expect(high.json.service_metadata.strategy).toBe("pareto");
    expect(entry.data.tier).toBe("high");
    expect(entry.data.frontier.map((f: Json) => f.model)).toEqual(["acme/small", "acme/coder"]);
    const low = await chat(ask("service/pareto-code", "write a parser", { plugins: [{ id: "pareto-router", min_coding_score: 0.1 }] }));
    expect(low.json.model).toBe("acme/small");
  });

  test("max_price picks the best frontier model under it; none under it is a 404", async () => {
    const under = await chat(ask("service/pareto-code", "write a parser", { plugins: [{ id: "pareto-router", max_price: 0.5 }] }));
    expect(under.json.model).toBe("acme/small");
    const none = await chat(ask("service/pareto-code", "write a parser", { plugins: [{ id: "pareto-router", max_price: 0.01 }] }));
    expect(none.status).toBe(404);
  });
});

describe("jev-router", () => {
  test("picks a model and a reasoning effort, sent upstream; its pipeline data follows the reference", async () => {
    const { json } = await chat(ask("typesafe/jev-router", "Prove step by step, rigorously and in detail, that there are infinitely many primes", { plugins: [{ id: "jev-router", cost_tier: "high" }] }));
    expect(json.service_metadata.strategy).toBe("jev");
    const entry = routerEntry(json, "jev-router")!;
    expect(entry.data).toMatchObject({ task_type: "reasoning", pipeline: "default", advisor_model: "local-classifier", resolved_to: json.model });
    expect(entry.data.candidates[0]).toMatchObject({ model: json.model, tier: "high" });
    expect(["acme/large", "acme/max"]).toContain(json.model);
    expect(upstream.bodies[0]!.reasoning_effort).toBe(entry.data.candidates[0].effort);
  });

  test("400s: reasoning.max_tokens, another router's model, an unknown tier; 404 when exclusions leave nothing; a list matching nothing is ignored", async () => {
    const budget = await chat(ask("typesafe/jev-router", "hi", { reasoning: { max_tokens: 100 } }));
    expect(budget.status).toBe(400);
    expect(budget.json.error.message).toContain("reasoning.max_tokens");
    const nested = await chat(ask("typesafe/jev-router", "hi", { plugins: [{ id: "jev-router", models: ["service/auto"] }] }));
    expect(nested.status).toBe(400);
    const tier = await chat(ask("typesafe/jev-router", "hi", { plugins: [{ id: "jev-router", cost_tier: "xhigh" }] }));
    expect(tier.status).toBe(400);
    const empty = await chat(ask("typesafe/jev-router", "hi", { plugins: [{ id: "jev-router", excluded_models: ["acme/*"] }] }));
    expect(empty.status).toBe(404);
    const ignored = await chat(ask("typesafe/jev-router", "hi", { plugins: [{ id: "jev-router", models: ["other/*"], allowed_models: ["nope/*"] }] }));
    expect(ignored.status).toBe(200);
    expect(routerEntry(ignored.json, "jev-router")!.data.list_fallback).toBe("models_ignored");
    expect(upstream.bodies.length).toBe(1);
  });
});

describe("switchyard-router", () => {
  const yard = (content: string, plugin: Json = {}, models = ["acme/small", "acme/large"]) => ({ model: "nvidia/switchyard", models, messages: [{ role: "user", content }], plugins: [{ id: "switchyard-router", ...plugin }] });

  test("capability: a simple prompt goes to the efficient (cheapest) model, a demanding one to the capable (dearest)", async () => {
    const easy = await chat(yard("hello there", { algorithm: "capability" }));
    expect(easy.json.model).toBe("acme/small");
    expect(routerEntry(easy.json, "switchyard-router")!.data).toMatchObject({ tier: "efficient", strategy: "capability", resolved_to: "acme/small", fallback_models: ["acme/large"] });
    const hard = await chat(yard("Prove rigorously, step by step and in detail, why this algorithm's complexity is optimal, covering every edge case of the design", { algorithm: "capability" }));
    expect(hard.json.model).toBe("acme/large");
    expect(hard.json.service_metadata.strategy).toBe("switchyard");
  });

  test("passthrough keeps the caller's order; 1–3 models, four are a 400", async () => {
    expect((await chat(yard("hello", { algorithm: "passthrough" }, ["acme/large", "acme/small"]))).json.model).toBe("acme/large");
    const four = await chat(yard("hello", {}, ["acme/small", "acme/coder", "acme/mid", "acme/large"]));
    expect(four.status).toBe(400);
  });

  test("stage asks the judge when the rule is unsure: its verdict decides, a broken or slow judge falls back to the capable tier", async () => {
    const uncertain = "Write a function that merges two sorted lists";
    upstream.script = (body) => (body.model === "mid" ? { text: '{"crux":"easy","primary_rule":"basic coding","capability_boundary":"supported","p_solve":0.9}' } : { text: `answer from ${String(body.model)}` });
    const judged = await chat(yard(uncertain, { judge_model: "acme/mid" }));
    expect(judged.json.model).toBe("acme/small");
    const data = routerEntry(judged.json, "switchyard-router")!.data;
    expect(data).toMatchObject({ strategy: "stage", tier: "efficient", judge_model: "acme/mid", judge: { capability_boundary: "supported", p_solve: 0.9 } });
    expect(typeof data.judge_ms).toBe("number");
    expect(upstream.bodies[0]!.model).toBe("mid");
    expect(judged.json.service_metadata.attempts.map((a: Json) => a.model)).toEqual(["acme/mid", "acme/small"]);

    upstream.script = (body) => ({ text: body.model === "mid" ? "I think it is easy" : `answer from ${String(body.model)}` });
    const broken = await chat(yard(uncertain, { judge_model: "acme/mid" }));
    expect(broken.json.model).toBe("acme/large");
    expect(routerEntry(broken.json, "switchyard-router")!.data.judge_failure).toBe("judge_not_valid_json");

    upstream.script = (body) => (body.model === "mid" ? { text: '{"capability_boundary":"supported","p_solve":1}' } : { text: `answer from ${String(body.model)}` });
    upstream.delayMs = 300;
    const slow = await chat(yard(uncertain, { judge_model: "acme/mid", judge_timeout_ms: 100 }));
    expect(slow.status).toBe(200);
    expect(slow.json.model).toBe("acme/large");
    expect(routerEntry(slow.json, "switchyard-router")!.data.judge_failure).toBe("judge_timeout");
  });

  test("without a judge, stage decides by the rule and says so", async () => {
    const { json } = await chat(yard("Write a function that merges two sorted lists"));
    expect(routerEntry(json, "switchyard-router")!.data.degraded_reason).toBe("no_judge_model");
  });
});
