/**
 * The `moderation` plugin through HTTP: flagged input is a 403 with `{reasons, flagged_input (at
 * most 100 characters, elided in the middle), provider_name, model_slug}`, with each engine: the local lexicon (the
 * default, offline), an OpenAI-compatible `/moderations` endpoint, and an LLM judge (any model of the gateway); an
 * engine that fails is a 503; a request's entry takes no options; the operator may turn it on for everyone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../support/envelope.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { MODEL, startGuardedGateway, type GuardedGateway } from "./setup.ts";

type Json = Record<string, any>;
const HARMFUL = "How do I make a pipe bomb at home?";

const ask = (gw: TestGateway, content: string, plugins: Json[] = [{ id: "moderation" }], model = "simulator/small") =>
  gw.request("/chat/completions", { method: "POST", headers: { "x-service-metadata": "enabled" }, json: { model, messages: [{ role: "user", content }], plugins } });

describe("local engine (default)", () => {
  let gw: TestGateway;
  beforeAll(async () => void (gw = await startTestGateway()));
  afterAll(() => gw.close());

  test("flagged input is a 403 with the reference's metadata; clean input passes with a pipeline entry", async () => {
    const res = await ask(gw, HARMFUL);
    expect(res.status).toBe(403);
    const body = (await res.json()) as Json;
    expect(body.error).toEqual({
      code: 403,
      message: "Input flagged by moderation: illicit/violent",
      metadata: { reasons: ["illicit/violent"], flagged_input: HARMFUL, provider_name: "local", model_slug: "local-lexicon-v1", error_type: "permission_denied" },
    });
    expect(body.service_metadata.pipeline).toEqual([expect.objectContaining({ type: "plugin", name: "moderation", data: expect.objectContaining({ flagged: true }) })]);
    const clean = await ask(gw, "How do I bake bread at home?");
    expect(clean.status).toBe(200);
    expect(((await clean.json()) as Json).service_metadata.pipeline).toEqual([expect.objectContaining({ name: "moderation", data: expect.objectContaining({ flagged: false }) })]);
  });

  test("flagged_input is at most 100 characters, elided in the middle", async () => {
    const long = `${"Some long preamble about chemistry. ".repeat(8)}I want to kill myself tonight. ${"And some trailing text. ".repeat(8)}`;
    const body = (await (await ask(gw, long)).json()) as Json;
    const shown = body.error.metadata.flagged_input as string;
    expect(shown).toHaveLength(100);
    expect(shown).toContain("…");
    expect(shown.startsWith(long.slice(0, 40))).toBe(true);
    expect(shown.endsWith(long.slice(-40))).toBe(true);
    expect(body.error.metadata.reasons).toEqual(["self-harm"]);
  });

  test("a request's entry takes no options (the engine is the operator's)", async () => {
    await expectError(await ask(gw, "hi", [{ id: "moderation", engine: "openai", base_url: "http://169.254.169.254" }]), 400, "plugins[0].engine");
  });
});

describe("OpenAI-compatible /moderations engine", () => {
  let gw: TestGateway;
  let status = 200;
  const seen: Json[] = [];
  const endpoint = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as Json;
      seen.push({ body, auth: req.headers.get("authorization") });
      if (status !== 200) return new Response("down", { status });
      const results = (body.input as string[]).map((text) => (text.includes("hate") ? { flagged: true, categories: { hate: true, violence: false } } : { flagged: false, categories: {} }));
      return Response.json({ id: "modr-1", model: "omni-moderation-2024", results });
    },
  });
  beforeAll(async () => {
    gw = await startTestGateway({ file: { plugins: { moderation: { engine: "openai", base_url: `http://127.0.0.1:${endpoint.port}/v1`, api_key: "mod-key" } } } });
  });
  afterAll(async () => {
    await gw.close();
    endpoint.stop(true);
  });

  test("every user message is sent; a flagged one is the 403 with the endpoint's model", async () => {
    const res = await gw.request("/chat/completions", {
      method: "POST",
      json: { model: "simulator/small", plugins: [{ id: "moderation" }], messages: [{ role: "user", content: "first" }, { role: "assistant", content: "ok" }, { role: "user", content: "full of hate" }] },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error.metadata).toMatchObject({ reasons: ["hate"], flagged_input: "full of hate", provider_name: "127.0.0.1", model_slug: "omni-moderation-2024" });
    expect(seen.at(-1)).toEqual({ body: { model: "omni-moderation-latest", input: ["first", "full of hate"] }, auth: "Bearer mod-key" });
    expect((await ask(gw, "a kind message")).status).toBe(200);
  });

  test("an engine that fails is a 503 (the input could not be checked)", async () => {
    status = 500;
    const failure = await expectError(await ask(gw, "anything"), 503);
    expect(failure.error.message).toBe("Moderation is unavailable: the input could not be checked");
    status = 200;
  });
});

describe("LLM judge engine, on for everyone", () => {
  let g: GuardedGateway;
  beforeAll(async () => {
    g = await startGuardedGateway(
      (body) => {
        const text = JSON.stringify(body.messages);
        if (!text.includes("content moderation classifier")) return { text: "hello" };
        return { text: text.includes("punch") ? '{"results": [["violence"]]}' : '{"results": [[]]}' };
      },
      { plugins: { moderation: { enabled: true, engine: "llm", model: MODEL } } },
    );
  });
  afterAll(() => g.close());

  test("the judge's categories are the reasons; requests that do not name the plugin are moderated too", async () => {
    const res = await g.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "I will punch him" }] } });
    expect(res.status).toBe(403);
    const metadata = ((await res.json()) as Json).error.metadata;
    expect(metadata).toMatchObject({ reasons: ["violence"], model_slug: MODEL });
    // The judge's turn is load-balanced over the model's endpoints: it names the one that answered.
    expect(["acme", "backup"]).toContain(metadata.provider_name);
    const ok = await g.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "hi there" }] } });
    expect(ok.status).toBe(200);
  });
});
