/**
 * Native web search through HTTP (`engine: "native"`: the upstream's own search where the adapter has one).
 * A Responses client declaring `service:web_search` natively against the Anthropic and OpenAI Responses models: the
 * fake upstream receives the upstream's own search tool, the client gets a `service:web_search` item with the
 * sources, the answer with its url_citation, and the search in `usage.server_tool_use_details`. A Messages client
 * sending Anthropic's own `web_search_20250305` gets Anthropic's blocks back as they were. Adapters without a
 * search refuse it with a 400 before calling anything.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fixture, replyOf, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { upstreamCall } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;
const NATIVE = { type: "service:web_search", parameters: { engine: "native", max_uses: 2 } };
const QUESTION = "When was Claude Shannon born?";

async function post(path: string, body: Json): Promise<{ status: number; body: Json; events: Json[] }> {
  const res = await c.gw.request(path, { method: "POST", json: body });
  if (body.stream !== true || res.status !== 200) return { status: res.status, body: (await res.json()) as Json, events: [] };
  const events = (await res.text())
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as Json);
  return { status: res.status, body: {}, events };
}

/** A Responses result object: from the body, or from the stream's `response.completed`. */
function resultOf(reply: { body: Json; events: Json[] }, stream: boolean): Json {
  if (!stream) return reply.body;
  const completed = reply.events.find((event) => event.type === "response.completed");
  if (!completed) throw new Error(`no response.completed among ${reply.events.map((e) => e.type).join(", ")}`);
  return completed.response as Json;
}

const UPSTREAM_TOOL: Partial<Record<AdapterId, Json>> = {
  anthropic: { type: "web_search_20250305", name: "web_search", max_uses: 2 },
  "openai-responses": { type: "web_search" },
};

for (const adapter of ["anthropic", "openai-responses"] as const) {
  for (const stream of [false, true]) {
    test(`Responses client, native service:web_search on ${adapter}${stream ? ", streamed" : ""}: the upstream searches, the client sees it`, async () => {
      const expected = fixture(adapter, "web-search").expect;
      c.fake.enqueue(replyOf(adapter, "web-search", stream));
      const reply = await post("/responses", { model: MODEL[adapter], input: QUESTION, tools: [NATIVE], stream });
      expect(reply.status).toBe(200);

      // The upstream got its own search tool, and nothing for the gateway to run.
      const sent = upstreamCall(c.fake, adapter, stream).body;
      expect(sent.tools).toEqual([UPSTREAM_TOOL[adapter]!]);
      if (adapter === "openai-responses") expect(sent.include).toEqual(["web_search_call.action.sources"]);

      const result = resultOf(reply, stream);
      const output = result.output as Json[];
      const search = expected.webSearches![0]!;
      const item = output.find((entry) => entry.type === "service:web_search");
      expect(item).toMatchObject({
        id: search.id,
        status: "completed",
        action: { type: "search", query: search.query, sources: search.urls.map((url) => ({ type: "url", url })) },
      });
      const texts = output.filter((entry) => entry.type === "message").flatMap((entry) => entry.content as Json[]);
      expect(texts.map((content) => content.text).join("")).toBe(expected.text!);
      const citations = texts.flatMap((content) => content.annotations as Json[]);
      expect(citations).toEqual(expected.citations!.map((cite) => expect.objectContaining({ type: "url_citation", ...cite })));
      expect((result.usage as Json).server_tool_use_details).toEqual({ tool_calls_requested: 0, tool_calls_executed: 0, web_search_requests: 1 });
      if (stream) {
        // The item is announced before it is finished, as the gateway's own searches are.
        const added = reply.events.find((event) => event.type === "response.output_item.added" && (event.item as Json).type === "service:web_search");
        expect(added).toMatchObject({ item: { id: search.id, status: "in_progress" } });
      }
    });
  }
}

for (const stream of [false, true]) {
  test(`Messages client with Anthropic's own web_search_20250305${stream ? ", streamed" : ""}: Anthropic's blocks come back as they were`, async () => {
    const wire = fixture("anthropic", "web-search").json as { content: Json[] };
    c.fake.enqueue(replyOf("anthropic", "web-search", stream));
    const tool = { type: "web_search_20250305", name: "web_search", max_uses: 3 };
    const reply = await post("/messages", { model: MODEL.anthropic, max_tokens: 1024, messages: [{ role: "user", content: QUESTION }], tools: [tool], stream });
    expect(reply.status).toBe(200);
    expect(upstreamCall(c.fake, "anthropic", stream).body.tools).toEqual([tool]);

    const [use, result] = [wire.content[1]!, wire.content[2]!];
    if (!stream) {
      const content = reply.body.content as Json[];
      expect(content.slice(1, 3)).toEqual([use, result]);
      expect((reply.body.usage as Json).server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
      return;
    }
    // Streamed: the use block opens with empty input and gets its query as input_json_delta; the result arrives whole.
    const starts = reply.events.filter((event) => event.type === "content_block_start").map((event) => event.content_block as Json);
    expect(starts.filter((block) => block.type !== "text")).toEqual([{ ...use, input: {} }, result]);
    const json = reply.events
      .filter((event) => event.type === "content_block_delta" && (event.delta as Json).type === "input_json_delta")
      .map((event) => (event.delta as Json).partial_json as string)
      .join("");
    expect(JSON.parse(json)).toEqual(use.input);
  });
}

describe("adapters without a search of their own", () => {
  for (const adapter of ["openai", "gemini"] as const) {
    test(`${adapter}: 400 invalid_request naming the adapter, and no upstream call`, async () => {
      const reply = await post("/responses", { model: MODEL[adapter], input: QUESTION, tools: [NATIVE] });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ message: `service:web_search engine native is not supported by ${adapter}; use a gateway engine` });
      expect(c.fake.requests).toEqual([]);
    });
  }
});
