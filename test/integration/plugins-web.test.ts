/**
 * The `web` and `web-fetch` plugins through HTTP, against a fake SearXNG and fake pages on
 * loopback (reached through the operator allow-list) and a scripted model: `web` searches once with the last user
 * message, puts the results before the model with the search prompt, bills the engine's price and cites the URLs the
 * answer names; `web-fetch` hands the model the `service:web_fetch` tool, run by the agent loop under its limits.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { COMPLETION_TOKENS, PROMPT_TOKENS, startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";

type Json = Record<string, any>;
const PRICING = { prompt: 0.000001, completion: 0.000002 };
const SEARCH_PRICE = 0.005;
let upstream: ScriptedModel;
let site: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
let bare: TestGateway;
const searches: string[] = [];
let searchFails = false;

const origin = () => `http://127.0.0.1:${site.port}`;

beforeAll(async () => {
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/search") {
        searches.push(url.searchParams.get("q") ?? "");
        if (searchFails) return new Response("down", { status: 503 });
        return Response.json({
          results: [
            { url: `${origin()}/news/rates`, title: "Rates held", content: "The central bank held rates at 4%." },
            { url: `http://example.org/blog/rates`, title: "Blog on rates", content: "Opinions on rates." },
          ],
        });
      }
      if (url.pathname === "/page") return new Response("<html><head><title>Page</title></head><body><article><p>Fetched page text.</p></article></body></html>", { headers: { "content-type": "text/html" } });
      return new Response("not found", { status: 404 });
    },
  });
  upstream = startScriptedModel(() => ({ text: "unused" }));
  const providers = [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: "acme/m", upstream_model: "m", pricing: PRICING }] }];
  gw = await startTestGateway({
    file: { providers, network: { allow_private: ["127.0.0.1/32"] }, tools: { web_search: { engine: "searxng", base_url: origin(), price_per_request: SEARCH_PRICE } } },
  });
  bare = await startTestGateway({ file: { providers } });
});
afterAll(async () => {
  await gw.close();
  await bare.close();
  upstream.stop();
  site.stop(true);
});
beforeEach(() => {
  upstream.bodies.length = 0;
  searches.length = 0;
  searchFails = false;
});

async function chat(body: Json, on: TestGateway = gw): Promise<{ status: number; json: Json }> {
  const res = await on.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" } });
  return { status: res.status, json: (await res.json()) as Json };
}
const systemOf = (body: Json) => (body.messages as Json[]).filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
const entry = (json: Json, name: string) => (json.service_metadata?.pipeline as Json[] | undefined)?.find((e) => e.name === name);

describe("web", () => {
  test("searches with the last user message, shows the model the results, cites the page the answer names, bills the search", async () => {
    upstream.script = () => ({ text: `Rates were held, see [the report](${origin()}/news/rates).` });
    const { status, json } = await chat({
      model: "acme/m",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "older question" }, { role: "assistant", content: "older answer" }, { role: "user", content: "  What did the central bank   decide? " }],
      plugins: [{ id: "web" }],
    });
    expect(status).toBe(200);
    expect(searches).toEqual(["What did the central bank decide?"]);
    const system = systemOf(upstream.bodies[0]!);
    expect(system).toStartWith("Be brief.");
    expect(system).toContain("A web search was conducted on");
    expect(system).toContain(`[1] Rates held\nURL: ${origin()}/news/rates\nThe central bank held rates at 4%.`);
    const message = json.choices[0].message;
    const link = `[the report](${origin()}/news/rates)`;
    const start = (message.content as string).indexOf(link);
    expect(message.annotations).toEqual([
      { type: "url_citation", url_citation: { url: `${origin()}/news/rates`, title: "Rates held", start_index: start, end_index: start + link.length, content: "The central bank held rates at 4%." } },
    ]);
    const tokens = PROMPT_TOKENS * PRICING.prompt + COMPLETION_TOKENS * PRICING.completion;
    expect(json.usage.cost).toBeCloseTo(tokens + SEARCH_PRICE, 10);
    expect(json.usage.server_tool_use_details?.web_search_requests ?? json.usage.server_tool_use?.web_search_requests).toBe(1);
    expect(entry(json, "web")).toMatchObject({ type: "plugin", data: { query: "What did the central bank decide?", results: 2 } });
  });

  test("search_prompt replaces the default prompt; exclude_domains and include_domains filter the results", async () => {
    upstream.script = () => ({ text: "ok" });
    await chat({ model: "acme/m", messages: [{ role: "user", content: "rates" }], plugins: [{ id: "web", search_prompt: "USE THESE:", exclude_domains: ["example.org"] }] });
    const system = systemOf(upstream.bodies[0]!);
    expect(system).toStartWith("USE THESE:");
    expect(system).not.toContain("example.org");
    await chat({ model: "acme/m", messages: [{ role: "user", content: "rates" }], plugins: [{ id: "web", include_domains: ["*.example.org/blog"], max_results: 1 }] });
    const only = systemOf(upstream.bodies[1]!);
    expect(only).toContain("http://example.org/blog/rates");
    expect(only).not.toContain("/news/rates");
  });

  test("a streamed answer is cited too (chat, the official client)", async () => {
    upstream.script = () => ({ text: `See ${origin()}/news/rates for details.` });
    const client = new OpenAI({ apiKey: gw.inferenceKey, baseURL: gw.baseUrl });
    const stream = await client.chat.completions.create({ model: "acme/m", stream: true, messages: [{ role: "user", content: "rates?" }], plugins: [{ id: "web" }] } as never);
    const annotations: Json[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<Json>) annotations.push(...(chunk.choices?.[0]?.delta?.annotations ?? []));
    expect(annotations.map((a) => a.url_citation.url)).toEqual([`${origin()}/news/rates`]);
  });

  test("an engine that fails leaves the request unsearched, with a warning; no engine configured is a 400", async () => {
    searchFails = true;
    upstream.script = () => ({ text: "answer without search" });
    const failed = await chat({ model: "acme/m", messages: [{ role: "user", content: "rates" }], plugins: [{ id: "web" }] });
    expect(failed.status).toBe(200);
    expect(failed.json.choices[0].message.content).toBe("answer without search");
    expect(failed.json.service_metadata.warnings.some((w: Json) => w.code === "web_search_failed")).toBe(true);
    const none = await chat({ model: "acme/m", messages: [{ role: "user", content: "rates" }], plugins: [{ id: "web" }] }, bare);
    expect(none.status).toBe(400);
    expect(none.json.error.message).toContain("no search engine is configured");
  });

  test("engine native hands the search to the upstream (the server tool's native mode): the openai chat adapter has none, a 400", async () => {
    const res = await chat({ model: "acme/m", messages: [{ role: "user", content: "rates" }], plugins: [{ id: "web", engine: "native" }] });
    expect(res.status).toBe(400);
    expect(searches).toEqual([]);
    expect(upstream.bodies.length).toBe(0);
  });

  test("options out of range are 400s naming the field", async () => {
    const res = await chat({ model: "acme/m", messages: [{ role: "user", content: "x" }], plugins: [{ id: "web", max_results: 26 }] });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("plugins[0].max_results");
    expect(upstream.bodies.length).toBe(0);
  });
});

describe("web-fetch", () => {
  test("the model gets the web_fetch tool and the agent loop fetches for it, within the plugin's limits", async () => {
    upstream.script = (body) => {
      const results = (body.messages as Json[]).filter((m) => m.role === "tool");
      if (results.length === 0) return { calls: [{ name: "web_fetch", args: { url: `${origin()}/page` } }, { name: "web_fetch", args: { url: `${origin()}/page?again` } }] };
      return { text: "The page says: Fetched page text." };
    };
    const { status, json } = await chat({ model: "acme/m", messages: [{ role: "user", content: "read it" }], plugins: [{ id: "web-fetch", max_uses: 1, max_content_tokens: 100 }] });
    expect(status).toBe(200);
    const tools = upstream.bodies[0]!.tools as Json[];
    expect(tools.map((t) => t.function.name)).toEqual(["web_fetch"]);
    const results = (upstream.bodies[1]!.messages as Json[]).filter((m) => m.role === "tool").map((m) => JSON.parse(m.content));
    expect(results[0].content).toContain("Fetched page text.");
    expect(results[1].error).toBeDefined(); // max_uses 1: the second fetch is refused
    expect(json.choices[0].message.server_tool_calls.map((c: Json) => c.type)).toEqual(["service:web_fetch", "service:web_fetch"]);
    expect(entry(json, "web-fetch")).toMatchObject({ data: { max_uses: 1, max_content_tokens: 100 } });
  });

  test("a blocked domain is refused to the model; a bad domain entry or max_uses over 50 is a 400", async () => {
    upstream.script = (body) => ((body.messages as Json[]).some((m) => m.role === "tool") ? { text: "done" } : { calls: [{ name: "web_fetch", args: { url: `${origin()}/page` } }] });
    await chat({ model: "acme/m", messages: [{ role: "user", content: "read it" }], plugins: [{ id: "web-fetch", blocked_domains: ["127.0.0.1"] }] });
    const result = JSON.parse((upstream.bodies[1]!.messages as Json[]).find((m) => m.role === "tool")!.content);
    expect(result.error).toContain("blocked_domains");
    const bad = await chat({ model: "acme/m", messages: [{ role: "user", content: "x" }], plugins: [{ id: "web-fetch", allowed_domains: ["not a domain"] }] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("plugins[0].allowed_domains[0]");
    const many = await chat({ model: "acme/m", messages: [{ role: "user", content: "x" }], plugins: [{ id: "web-fetch", max_uses: 51 }] });
    expect(many.status).toBe(400);
  });
});
