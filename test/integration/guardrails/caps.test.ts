/**
 * What operators' patterns may cost, through HTTP (README "Caps on heavy work"): a pattern whose compiled program is
 * over `guardrails.pattern_max_instructions` is a 400 naming it at creation and on PATCH (a plain string of any length
 * is not: it costs two steps per character); patterns the cap allows, combined over a big prompt, stop at the
 * request's scan budget with a 403 naming it (on the prompt, and in-band on a streamed answer) while another key's
 * request is served, instead of holding the event loop for the whole scan.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_PATTERN_MAX_INSTRUCTIONS, DEFAULT_SCAN_BUDGET_STEPS } from "../../../core/guardrails/pattern/caps.ts";
import { expectError } from "../../support/envelope.ts";
import { ADMIN_KEY } from "../../support/gateway.ts";
import { MODEL, guardrail, newKey, startGuardedGateway, userTexts, type GuardedGateway } from "./setup.ts";

type Json = Record<string, any>;
let g: GuardedGateway;
/** What the upstream answers. */
let answer = "Fine.";
beforeAll(async () => void (g = await startGuardedGateway(() => ({ text: answer }))));
afterAll(() => g.close());

const HOSTILE = "(?:(?:.?){1000}){120}Z";
/** Just under the default cap: 49 optional wildcards and a letter (100 instructions), every one alive at every character. */
const busy = (letter: string) => `(?:.?){49}${letter}`;
/** Eight of them over a 200 KB prompt need 160 M steps, past the default budget of 100 M. */
const BUSY_FILTERS = [..."QRSTUVWX"].map((letter) => ({ pattern: busy(letter), action: "flag" }));
const BIG_TEXT = "word ".repeat(40_000);

const chat = (key: string, content: string, extra: Json = {}) =>
  g.gw.request("/chat/completions", { method: "POST", key, json: { model: MODEL, messages: [{ role: "user", content }], ...extra } });

describe("a pattern's cost at creation", () => {
  test("the hostile pattern is a 400 naming it and the cap, on POST and on PATCH; nothing is stored", async () => {
    expect(DEFAULT_PATTERN_MAX_INSTRUCTIONS).toBe(100);
    const before = ((await (await g.gw.request("/guardrails?limit=100", { key: ADMIN_KEY })).json()) as Json).total_count as number;
    const created = await expectError(
      await g.gw.request("/guardrails", { method: "POST", key: ADMIN_KEY, json: { name: "x", content_filters: [{ pattern: "ok", action: "flag" }, { pattern: HOSTILE, action: "block" }] } }),
      400,
      "content_filters[1].pattern",
    );
    expect(created.error.message).toBe(
      `content_filters[1].pattern "${HOSTILE}": too costly to scan: it compiles to 240,002 instructions, each of which may take a step per character of text; ` +
        "at most 100 are allowed (config guardrails.pattern_max_instructions)",
    );
    expect(((await (await g.gw.request("/guardrails?limit=100", { key: ADMIN_KEY })).json()) as Json).total_count).toBe(before);

    const id = await guardrail(g.gw, { name: "patched", content_filters: [{ pattern: "ok", action: "flag" }] }, {});
    const patched = await expectError(await g.gw.request(`/guardrails/${id}`, { method: "PATCH", key: ADMIN_KEY, json: { content_filters: [{ pattern: HOSTILE, action: "redact" }] } }), 400, "content_filters[0].pattern");
    expect(patched.error.message).toContain(HOSTILE);
    const kept = ((await (await g.gw.request(`/guardrails/${id}`, { key: ADMIN_KEY })).json()) as Json).data;
    expect(kept.content_filters).toEqual([{ pattern: "ok", action: "flag", label: null }]);
  });

  test("a program at the cap is accepted, one instruction more is not; a long plain string costs two steps per character", async () => {
    await guardrail(g.gw, { name: "at-cap", content_filters: [{ pattern: busy("Q"), action: "flag" }] }, {});
    const over = await g.gw.request("/guardrails", { method: "POST", key: ADMIN_KEY, json: { name: "over", content_filters: [{ pattern: `${busy("Q")}!`, action: "flag" }] } });
    expect((await expectError(over, 400, "content_filters[0].pattern")).error.message).toContain("compiles to 101 instructions");
    await guardrail(g.gw, { name: "codename", content_filters: [{ pattern: `(?i)${"project-phoenix ".repeat(5_000)}`, action: "block" }] }, {});
  });
});

describe("the scan budget of a request", () => {
  test("patterns the cap allows, over a big prompt: a 403 naming the budget, the upstream never called, another key served meanwhile", async () => {
    const key = await newKey(g.gw);
    const id = await guardrail(g.gw, { name: "busy", content_filters: BUSY_FILTERS }, { keyHash: key.hash });
    const before = g.upstream.bodies.length;
    const [hostile, ordinary] = await Promise.all([chat(key.key, BIG_TEXT), chat(g.gw.inferenceKey, "What are the rules of chess?")]);
    expect(ordinary.status).toBe(200);
    expect(((await ordinary.json()) as Json).choices[0].message.content).toBe("Fine.");
    const body = await expectError(hostile, 403);
    expect(body.error as Json).toEqual({
      code: 403,
      message: `Request blocked by guardrail "busy": checking it takes more than the scan budget of 100,000,000 steps (guardrails.scan_budget_steps)`,
      metadata: { guardrail_id: id, guardrail_name: "busy", guardrail_scope: "api-key", side: "input", scan_budget_steps: DEFAULT_SCAN_BUDGET_STEPS, error_type: "permission_denied" },
    });
    expect(userTexts(g.upstream).slice(before)).toEqual(["What are the rules of chess?"]);
    // The same key with an ordinary prompt is checked within the budget and served.
    expect((await chat(key.key, "A short question.")).status).toBe(200);
  }, 60_000);

  test("on a streamed answer the budget ends the stream in-band with the same 403", async () => {
    const key = await newKey(g.gw);
    await guardrail(g.gw, { name: "busy-out", apply_to: "output", content_filters: BUSY_FILTERS }, { keyHash: key.hash });
    answer = BIG_TEXT;
    try {
      const res = await chat(key.key, "Write a lot.", { stream: true });
      expect(res.status).toBe(200);
      const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: {")).map((f) => JSON.parse(f.slice(6)) as Json);
      expect(frames.filter((f) => f.error)).toHaveLength(1);
      expect(frames.find((f) => f.error)!.error).toMatchObject({
        code: 403,
        message: `Response blocked by guardrail "busy-out": checking it takes more than the scan budget of 100,000,000 steps (guardrails.scan_budget_steps)`,
        metadata: { guardrail_name: "busy-out", side: "output", scan_budget_steps: DEFAULT_SCAN_BUDGET_STEPS },
      });
    } finally {
      answer = "Fine.";
    }
    expect((await chat(g.gw.inferenceKey, "Still there?")).status).toBe(200);
  }, 60_000);
});
