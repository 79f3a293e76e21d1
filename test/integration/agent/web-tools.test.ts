/**
 * The web tools in the loop, through HTTP: a fake SearXNG and fake web pages on loopback (reached through the
 * operator allow-list, 127.0.0.1/32 only), a model that searches, fetches and cites; and the SSRF corpus — every
 * address the allow-list leaves out, in every form, refused as a tool error the model sees, with the canary on
 * 127.0.0.2 never contacted.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { Script } from "../../support/scripted-model.ts";
import { messagesOf, MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

type Json = Record<string, any>;
let agent: AgentGateway;
let site: ReturnType<typeof Bun.serve>;
let canary: ReturnType<typeof Bun.serve>;
let canaryHits = 0;
const searches: string[] = [];

const ARTICLE = `<!doctype html><html><head><title>Gateway guide</title></head><body>
<nav><a href="/">Home</a> | <a href="/ads">Ads</a></nav>
<article><h1>Running the gateway</h1><p>The gateway runs tools for the model, turn after turn, and bills every turn exactly.</p>
<p>It refuses private addresses unless the operator allows them.</p></article><footer>© footer</footer></body></html>`;

beforeAll(async () => {
  canary = Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: () => (canaryHits++, new Response("canary")) });
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/search") {
        searches.push(url.searchParams.get("q") ?? "");
        return Response.json({ query: url.searchParams.get("q"), results: [{ url: `${origin}/guide`, title: "Gateway guide", content: "How the gateway runs tools." }, { url: `${origin}/other`, title: "Other", content: "Something else." }] });
      }
      if (url.pathname === "/guide") return new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (url.pathname === "/to-canary") return Response.redirect(`http://127.0.0.2:${canary.port}/`, 302);
      return new Response("not found", { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${site.port}`;
  agent = await startAgentGateway(() => ({ text: "unused" }), {
    network: { allow_private: ["127.0.0.1/32"] },
    tools: { web_search: { engine: "searxng", base_url: origin } },
  });
});
afterAll(async () => {
  await agent.close();
  site.stop(true);
  canary.stop(true);
});
beforeEach(() => {
  agent.upstream.bodies.length = 0;
  searches.length = 0;
});

const origin = () => `http://127.0.0.1:${site.port}`;
const toolResults = (body: Json) => (body.messages as Json[]).filter((m) => m.role === "tool").length;

/** Searches, then fetches the first result, then answers citing it as a Markdown link. */
const researcher: Script = (body) => {
  switch (toolResults(body)) {
    case 0:
      return { calls: [{ name: "web_search", args: { query: "how does the gateway run tools" } }] };
    case 1:
      return { calls: [{ name: "web_fetch", args: { url: `${origin()}/guide` } }] };
    default:
      return { text: `It runs them turn after turn, see [the guide](${origin()}/guide).` };
  }
};
const tools = [{ type: "service:web_search" }, { type: "service:web_fetch" }];

describe("search, fetch, cite", () => {
  test("Responses: both calls shown, the page reached the model as Markdown, the answer cites the page", async () => {
    agent.upstream.script = researcher;
    const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "How?", tools } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(searches).toEqual(["how does the gateway run tools"]);
    expect(body.output.map((item: Json) => item.type)).toEqual(["service:web_search", "service:web_fetch", "message"]);
    expect(body.output[0].action).toMatchObject({ type: "search", query: "how does the gateway run tools" });
    expect(body.output[0].action.sources.map((s: Json) => s.url)).toEqual([`${origin()}/guide`, `${origin()}/other`]);
    expect(body.output[1]).toMatchObject({ status: "completed", url: `${origin()}/guide`, title: "Gateway guide" });
    const fetched = JSON.parse(String(messagesOf(agent.upstream, 2).at(-1)!.content)) as Json;
    expect(fetched.content).toContain("# Running the gateway");
    expect(fetched.content).not.toContain("footer");
    const text = body.output[2].content[0];
    const citation = text.annotations.find((a: Json) => a.type === "url_citation");
    expect(citation).toMatchObject({ url: `${origin()}/guide`, title: "Gateway guide" });
    expect(text.text.slice(citation.start_index, citation.end_index)).toBe(`[the guide](${origin()}/guide)`);
    expect(body.usage.server_tool_use_details).toMatchObject({ web_search_requests: 1, tool_calls_executed: 2 });
  });

  test("Chat: the citation in message.annotations; Messages: on the text block", async () => {
    agent.upstream.script = researcher;
    const openai = new OpenAI({ baseURL: agent.gw.baseUrl, apiKey: agent.gw.inferenceKey, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "How?" }], tools: tools as never });
    const annotations = (completion.choices[0]!.message as unknown as Json).annotations as Json[];
    expect(annotations.find((a) => a.type === "url_citation")?.url_citation).toMatchObject({ url: `${origin()}/guide`, title: "Gateway guide" });
    const anthropic = new Anthropic({ baseURL: agent.gw.origin + "/api", apiKey: agent.gw.inferenceKey, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 200, messages: [{ role: "user", content: "How?" }], tools: tools as never });
    const blocks = message.content as unknown as Json[];
    expect(blocks.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result", "server_tool_use", "web_fetch_tool_result", "text"]);
    expect(blocks[1]!.content[0]).toMatchObject({ type: "web_search_result", url: `${origin()}/guide` });
    expect(blocks[4]!.citations[0]).toMatchObject({ type: "web_search_result_location", url: `${origin()}/guide` });
    expect((message.usage as unknown as Json).server_tool_use).toMatchObject({ web_search_requests: 1, web_fetch_requests: 1 });
  });
});

test("Chat: OpenAI's web_search shorthand is our web search, and tool_choice {type: service:web_search} forces it on the first turn", async () => {
  agent.upstream.script = researcher;
  const res = await agent.gw.request("/chat/completions", {
    method: "POST",
    json: { model: MODEL, messages: [{ role: "user", content: "How?" }], tools: [{ type: "web_search", search_context_size: "low" }, { type: "service:web_fetch" }], tool_choice: { type: "service:web_search" } },
  });
  expect(res.status).toBe(200);
  expect(agent.upstream.bodies[0]!.tool_choice).toEqual({ type: "function", function: { name: "web_search" } });
  expect(agent.upstream.bodies[1]!.tool_choice).toBe("auto");
  expect(((await res.json()) as Json).choices[0].message.server_tool_calls.map((c: Json) => c.type)).toEqual(["service:web_search", "service:web_fetch"]);
  const bad = await agent.gw.request("/chat/completions", { method: "POST", json: { model: MODEL, messages: [{ role: "user", content: "x" }], tools: [{ type: "web_search_preview", colour: "red" }] } });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain("tools[0].parameters.colour");
});

describe("the network policy through the tools", () => {
  test("every address outside the allow-list, in every form, is a tool error; the canary is never contacted", async () => {
    const port = canary.port;
    const targets = [
      `http://127.0.0.2:${port}/`,
      `http://2130706434:${port}/`,
      `http://0177.0.0.2:${port}/`,
      `http://0x7f000002:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.2]:${port}/`,
      `${origin()}/to-canary`,
      `http://169.254.169.254/latest/meta-data/`,
      `file:///etc/passwd`,
    ];
    agent.upstream.script = (body) => (toolResults(body) === 0 ? { calls: targets.map((url) => ({ name: "web_fetch", args: { url } })) } : { text: "Could not fetch." });
    const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "fetch", tools: [{ type: "service:web_fetch" }] } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    const items = body.output.filter((item: Json) => item.type === "service:web_fetch");
    expect(items).toHaveLength(targets.length);
    for (const item of items) expect(item.status).toBe("failed");
    expect(items[0].error).toContain("127.0.0.2");
    expect(canaryHits).toBe(0);
    expect(body.output.at(-1).content[0].text).toBe("Could not fetch.");
  });
});
