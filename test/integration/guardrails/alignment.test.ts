/**
 * The beta `alignment` plugin through HTTP with a scripted evaluator: a turn that passes; one that
 * fails then passes on retry; one that fails twice (403 with `metadata.alignment {calls, rejected}`); an evaluator
 * that is down (enforce: 503; audit: returned with an `unavailable` call); audit mode; streams in both modes (enforce
 * withholds a turn until judged, its failure in-band; audit reports at the end); `alignment` in the chat, Responses
 * and Messages results; the agent loop's turns each judged; validation and admission.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../support/envelope.ts";
import { ADMIN_KEY } from "../../support/gateway.ts";
import type { ScriptedReply } from "../../support/scripted-model.ts";
import { MODEL, OTHER_MODEL, startGuardedGateway, type GuardedGateway } from "./setup.ts";

type Json = Record<string, any>;
const RULES = ["Never say BANNED", "Answer in English"];

/** What the scripted upstream does: the main model's replies in order, and the evaluator's behaviour. */
const scenario = { replies: [] as string[], evaluator: "judge" as "judge" | "down" | "malformed", evaluated: 0, mainCalls: 0 };

function script(body: Json): ScriptedReply {
  const text = JSON.stringify(body.messages);
  if (text.includes("You check one message an AI assistant wrote")) {
    scenario.evaluated++;
    if (scenario.evaluator === "down") return { status: 500, message: "evaluator down" };
    if (scenario.evaluator === "malformed") return { text: "I think it is fine" };
    const judged = JSON.parse((body.messages as Json[]).at(-1)!.content.split("Message (JSON):\n")[1]) as Json;
    const broken = String(judged.content ?? "").includes("BANNED");
    return { text: JSON.stringify({ probabilities: [broken ? 0.96 : 0.04, 0.1] }) };
  }
  if ((body.tools as Json[] | undefined)?.some((t) => t.function?.name === "datetime") && !(body.messages as Json[]).some((m) => m.role === "tool")) {
    return { calls: [{ name: "datetime", args: {} }] };
  }
  const reply = scenario.replies[Math.min(scenario.mainCalls, scenario.replies.length - 1)] ?? "fine";
  scenario.mainCalls++;
  return { text: reply };
}

let g: GuardedGateway;
beforeAll(async () => void (g = await startGuardedGateway(script, { plugins: { alignment: { evaluator_model: OTHER_MODEL, admit: true } } })));
afterAll(() => g.close());
beforeEach(() => Object.assign(scenario, { replies: ["A clean answer."], evaluator: "judge", evaluated: 0, mainCalls: 0 }));

const plugin = (extra: Json = {}) => ({ id: "alignment", rules: RULES, ...extra });
const chat = (extra: Json = {}, pluginExtra: Json = {}) =>
  g.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "Say something" }], plugins: [plugin(pluginExtra)], ...extra } });

const allowed = (call: number) => ({ call, outcome: "allowed", rules: [{ broken: false, probability: 0.04 }, { broken: false, probability: 0.1 }] });
const blocked = (call: number) => ({ call, outcome: "blocked", rules: [{ broken: true, probability: 0.96 }, { broken: false, probability: 0.1 }] });

async function frames(res: Response): Promise<Array<Json | string>> {
  return (await res.text())
    .split("\n\n")
    .flatMap((f) => f.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)))
    .map((d) => (d === "[DONE]" ? d : (JSON.parse(d) as Json)));
}

describe("enforce (default), not streamed", () => {
  test("a turn that passes: returned with its call; the rules were stated to the model in a system message", async () => {
    const res = await chat();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.content).toBe("A clean answer.");
    expect(body.alignment).toEqual({ calls: [allowed(1)] });
    const main = g.upstream.bodies.find((b) => !JSON.stringify(b.messages).includes("You check one message"))!;
    expect((main.messages as Json[])[0]).toEqual({ role: "system", content: "Your reply must follow every one of these rules:\nNever say BANNED\nAnswer in English" });
  });

  test("fails, then passes on the retry, which carried the withheld reply and the broken rule", async () => {
    scenario.replies = ["This is BANNED content.", "A better answer."];
    const res = await chat();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.content).toBe("A better answer.");
    expect(body.alignment).toEqual({ calls: [blocked(1), allowed(2)] });
    const retry = g.upstream.bodies.filter((b) => !JSON.stringify(b.messages).includes("You check one message")).at(-1)!;
    const note = (retry.messages as Json[]).at(-1)!;
    expect(note.role).toBe("user");
    expect(note.content).toContain('0: Never say BANNED');
    expect(note.content).toContain("This is BANNED content.");
    // Both turns are billed.
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
  });

  test("fails twice: 403 with the calls, the rejected reply and the summed usage", async () => {
    scenario.replies = ["BANNED once", "BANNED twice"];
    const res = await chat();
    expect(res.status).toBe(403);
    const body = (await res.json()) as Json;
    expect(body.error.message).toBe('Alignment plugin: the reply broke these rules: 0: "Never say BANNED"');
    expect(body.error.metadata).toEqual({
      alignment: { calls: [blocked(1), blocked(2)], rejected: { role: "assistant", content: "BANNED twice", refusal: null } },
      usage: { prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 },
      error_type: "permission_denied",
    });
  });

  test("max_retries 0: the first blocked turn is the 403", async () => {
    scenario.replies = ["BANNED"];
    const res = await chat({}, { max_retries: 0 });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error.metadata.alignment.calls).toEqual([blocked(1)]);
  });

  test("evaluator down: 503 saying why; a malformed verdict likewise", async () => {
    scenario.evaluator = "down";
    const down = await chat();
    expect(down.status).toBe(503);
    const body = (await down.json()) as Json;
    expect(body.error.message).toBe("Alignment plugin: the reply could not be evaluated: evaluator_error");
    expect(body.error.metadata.alignment.calls).toEqual([{ call: 1, outcome: "unavailable", reason: "evaluator_error" }]);
    scenario.evaluator = "malformed";
    expect(((await (await chat()).json()) as Json).error.metadata.alignment.calls).toEqual([{ call: 1, outcome: "unavailable", reason: "malformed_answer" }]);
  });
});

describe("audit", () => {
  test("every turn judged and returned, a broken rule included; an unavailable evaluator never blocks", async () => {
    scenario.replies = ["BANNED words here"];
    const res = await chat({}, { mode: "audit" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.content).toBe("BANNED words here");
    expect(body.alignment).toEqual({ calls: [blocked(1)] });
    scenario.evaluator = "down";
    const down = (await (await chat({}, { mode: "audit" })).json()) as Json;
    expect(down.alignment).toEqual({ calls: [{ call: 1, outcome: "unavailable", reason: "evaluator_error" }] });
  });

  test("a turn too large to judge is `cut`, and never sent to the evaluator", async () => {
    scenario.replies = ["word ".repeat(2_001)];
    const body = (await (await chat({}, { mode: "audit" })).json()) as Json;
    expect(body.alignment).toEqual({ calls: [{ call: 1, outcome: "unavailable", reason: "cut" }] });
    expect(scenario.evaluated).toBe(0);
  });
});

describe("streams", () => {
  test("enforce: a blocked turn is withheld and retried; only the passing answer is streamed; the report is on the last chunk", async () => {
    scenario.replies = ["BANNED stuff", "Clean stuff now."];
    const all = await frames(await chat({ stream: true, stream_options: { include_usage: true } }));
    const content = all.flatMap((f) => (typeof f === "object" ? (f.choices?.[0]?.delta?.content ?? "") : "")).join("");
    expect(content).toBe("Clean stuff now.");
    const last = all.filter((f) => typeof f === "object").at(-1) as Json;
    expect(last.usage).toBeDefined();
    expect(last.alignment).toEqual({ calls: [blocked(1), allowed(2)] });
    expect(all.at(-1)).toBe("[DONE]");
  });

  test("enforce, fails twice: HTTP 200 and an in-band error carrying metadata.alignment.calls (chat); response.failed (Responses)", async () => {
    scenario.replies = ["BANNED"];
    const res = await chat({ stream: true });
    expect(res.status).toBe(200);
    const all = await frames(res);
    expect(all.some((f) => typeof f === "object" && (f.choices?.[0]?.delta?.content ?? "").includes("BANNED"))).toBe(false);
    const error = all.find((f) => typeof f === "object" && f.error) as Json;
    expect(error.error).toMatchObject({ code: 403, metadata: { alignment: { calls: [blocked(1), blocked(2)] }, error_type: "permission_denied" } });

    scenario.mainCalls = 0;
    const responses = await g.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "Say something", stream: true, plugins: [plugin()] } });
    const events = await frames(responses);
    const failed = events.find((e) => typeof e === "object" && e.type === "response.failed") as Json;
    expect(failed.response.error).toMatchObject({ message: 'Alignment plugin: the reply broke these rules: 0: "Never say BANNED"', metadata: { alignment: { calls: [blocked(1), blocked(2)] } } });
  });

  test("audit: streamed as it comes, reported at the end", async () => {
    scenario.replies = ["BANNED but audited"];
    const all = await frames(await chat({ stream: true }, { mode: "audit" }));
    const content = all.flatMap((f) => (typeof f === "object" ? (f.choices?.[0]?.delta?.content ?? "") : "")).join("");
    expect(content).toBe("BANNED but audited");
    const finish = all.find((f) => typeof f === "object" && f.choices?.[0]?.finish_reason) as Json;
    expect(finish.alignment).toEqual({ calls: [blocked(1)] });
  });
});

describe("every format shows `alignment`", () => {
  test("Responses: a field of the response; Messages: a field of the message", async () => {
    const responses = (await (await g.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "hi", plugins: [plugin()] } })).json()) as Json;
    expect(responses.alignment).toEqual({ calls: [allowed(1)] });
    const messages = (await (await g.gw.request("/messages", { method: "POST", json: { model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "hi" }], plugins: [plugin()] } })).json()) as Json;
    // Calls are numbered per request.
    expect(messages.alignment).toEqual({ calls: [allowed(1)] });
  });

  test("the agent loop: every model turn is judged", async () => {
    const res = await chat({ tools: [{ type: "service:datetime" }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.alignment.calls.map((c: Json) => c.outcome)).toEqual(["allowed", "allowed"]);
  });
});

describe("validation and admission", () => {
  test("bad settings are 400s naming the field; operator keys are refused in a request", async () => {
    const cases: Array<[Json, string]> = [
      [{ rules: [] }, "plugins[0].rules"],
      [{ rules: Array.from({ length: 129 }, (_, i) => `rule ${i}`) }, "plugins[0].rules"],
      [{ rules: ["two\nlines"] }, "plugins[0].rules[0]"],
      [{ rules: ["x".repeat(201)] }, "plugins[0].rules[0]"],
      [{ max_retries: 4 }, "plugins[0].max_retries"],
      [{ threshold: 0 }, "plugins[0].threshold"],
      [{ evaluator_model: MODEL }, "plugins[0].evaluator_model"],
    ];
    for (const [extra, param] of cases) await expectError(await chat({}, extra), 400, param);
    await expectError(await g.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "x" }], plugins: [plugin(), plugin()] } }), 400);
  });

  test("a key not admitted is a 403; admitted through the management API, it may", async () => {
    const other = await startGuardedGateway(script, { plugins: { alignment: { evaluator_model: OTHER_MODEL } } });
    try {
      const ask = () => other.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "hi" }], plugins: [plugin()] } });
      const refused = await expectError(await ask(), 403);
      expect(refused.error.message).toBe("The alignment plugin is a beta feature this key is not admitted to");
      expect((await other.gw.request("/beta/alignment/admissions", { method: "POST", key: ADMIN_KEY, json: { key_hashes: [other.gw.inferenceKeyHash] } })).status).toBe(200);
      expect((await ask()).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
