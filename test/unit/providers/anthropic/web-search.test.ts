/**
 * Anthropic's own web search (a native `service:web_search`, or a Messages client's `web_search_20250305`): the tool
 * sent, the blocks of a search turn decoded into server-tool parts and url citations (body and stream), and a
 * search replayed in the history sent back as Anthropic's blocks.
 */
import { describe, expect, test } from "bun:test";
import { serverToolResultBlock, serverToolUseBlock } from "../../../../core/formats/messages/server-tool-blocks.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { ServerToolPart } from "../../../../core/model/parts.ts";
import type { CanonicalRequest, Tool } from "../../../../core/model/request.ts";
import { toAnthropicBody } from "../../../../providers/anthropic/request.ts";
import { fromAnthropicMessage } from "../../../../providers/anthropic/response.ts";
import { anthropicStreamToEvents } from "../../../../providers/anthropic/stream.ts";
import type { WireMessage } from "../../../../providers/anthropic/wire.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { fixture } from "../../../support/fake-upstream/fixtures.ts";
import { encodeFrames } from "../../../support/fake-upstream/sse.ts";
import { canonicalRequest, drain, providerCall, streamOf, target } from "../helpers.ts";

/** With max_tokens, so the only warnings are the ones under test. */
const req = (overrides: Partial<CanonicalRequest> = {}) => canonicalRequest({ maxTokens: 1024, ...overrides });
const NATIVE: Tool = { kind: "server", type: "service:web_search", parameters: { engine: "native" } };
const TYPED: Tool = { kind: "server", type: "web_search_20250305", parameters: { name: "web_search", max_uses: 2 } };

const FX = fixture("anthropic", "web-search");
const BODY = FX.json as WireMessage & { content: Array<Record<string, unknown>> };
const SEARCH_ID = "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE";
const WIKI = "https://en.wikipedia.org/wiki/Claude_Shannon";

const call = (tools: Tool[] = [NATIVE]) =>
  providerCall({ request: req({ tools }), target: target({ providerId: "anthropic", upstreamModel: "claude-sonnet-4-5" }) });
const streamed = (frames = FX.sse, c = call()) => drain(anthropicStreamToEvents(parseSse(streamOf(encodeFrames(frames, "named"))), c));
const bodyOf = (r: CanonicalRequest) => toAnthropicBody(r, target({ upstreamModel: "claude-sonnet-4-5" }), false);

describe("anthropic native web search: the request", () => {
  test("a native service:web_search becomes web_search_20250305 with the parameters Anthropic takes", () => {
    const request = req({
      tools: [
        {
          kind: "server",
          type: "service:web_search",
          parameters: {
            engine: "native",
            max_uses: 3,
            allowed_domains: ["https://docs.example.com/", "*.wikipedia.org"],
            user_location: { type: "approximate", city: "Paris", country: "FR", timezone: "Europe/Paris" },
            max_results: 5,
          },
        },
      ],
    });
    const body = bodyOf(request);
    expect(body.tools).toEqual([
      {
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["docs.example.com", "wikipedia.org"],
        user_location: { type: "approximate", city: "Paris", country: "FR", timezone: "Europe/Paris" },
      },
    ]);
    // The gateway's engine limits mean nothing upstream: said, not silently dropped.
    expect(request.warnings).toEqual([expect.objectContaining({ code: "unsupported_field", field: "tools[0].parameters.max_results" })]);
  });

  test("excluded_domains is sent as blocked_domains, except beside allowed_domains (Anthropic refuses both)", () => {
    const blocked = bodyOf(req({ tools: [{ ...NATIVE, parameters: { engine: "native", excluded_domains: ["spam.example"] } }] }));
    expect(blocked.tools).toEqual([{ type: "web_search_20250305", name: "web_search", blocked_domains: ["spam.example"] }]);
    const both = req({ tools: [{ ...NATIVE, parameters: { engine: "native", allowed_domains: ["a.example"], excluded_domains: ["b.example"] } }] });
    expect(bodyOf(both).tools).toEqual([{ type: "web_search_20250305", name: "web_search", allowed_domains: ["a.example"] }]);
    expect(both.warnings.map((w) => w.field)).toEqual(["tools[0].parameters.excluded_domains"]);
  });

  test("other service: tools, and a web search the gateway runs, are still not sent (with a warning)", () => {
    const request = req({ tools: [{ kind: "server", type: "service:web_search" }, { kind: "server", type: "service:datetime", parameters: {} }] });
    const body = bodyOf(request);
    expect(body.tools).toBeUndefined();
    expect(request.warnings.map((w) => w.field)).toEqual(["tools[0]", "tools[1]"]);
  });

  test("a function standing for the client's typed tool (the gateway's stand-in elsewhere) goes as the typed tool", () => {
    const standIn: Tool = { kind: "function", name: "web_search", parameters: { type: "object" }, upstreamTool: { type: "web_search_20250305", parameters: { name: "web_search", max_uses: 2 } } };
    const request = req({ tools: [standIn, { kind: "function", name: "f" }] });
    expect(bodyOf(request).tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 2 }, { name: "f", input_schema: { type: "object", properties: {} } }]);
    expect(request.warnings).toEqual([]);
  });
});

test("a tool result's tool_reference blocks go back to Anthropic after its content", () => {
  const request = req({
    messages: [
      { role: "user", parts: [{ type: "text", text: "weather?" }] },
      { role: "assistant", parts: [{ type: "tool-call", id: "toolu_1", name: "ToolSearch", arguments: "{}" }] },
      { role: "tool", parts: [{ type: "tool-result", callId: "toolu_1", content: "", toolReferences: ["get_weather"] }] },
      { role: "tool", parts: [{ type: "tool-result", callId: "toolu_2", content: [{ type: "text", text: "found" }], toolReferences: ["a", "b"] }] },
    ],
  });
  const results = bodyOf(request).messages.flatMap((m) => m.content).filter((block) => block.type === "tool_result");
  expect(results.map((block) => block.content)).toEqual([
    [{ type: "tool_reference", tool_name: "get_weather" }],
    [{ type: "text", text: "found" }, { type: "tool_reference", tool_name: "a" }, { type: "tool_reference", tool_name: "b" }],
  ]);
});

describe("anthropic native web search: the reply", () => {
  const expectedResult = {
    query: "claude shannon birth date",
    results: [
      {
        url: WIKI,
        title: "Claude Shannon - Wikipedia",
        page_age: "April 30, 2025",
        encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3YjcSDJkYdqLuc3Uy0wpEMRoMXGjR1wJtUe3O7q0IIjDxVmBxwYjmzy3d6Hcw0ZUOh5aU",
      },
      {
        url: "https://www.britannica.com/biography/Claude-Shannon",
        title: "Claude Shannon | Biography, Information Theory, & Facts | Britannica",
        encrypted_content: "EpsMCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3YjcSDBYhbKr8l2i6I0eUohoMnXCnV1cCnrWpq3IWIjAaLdpBAf6W",
      },
    ],
  };
  const citedText = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan";
  const citation = {
    type: "url_citation",
    url: WIKI,
    title: "Claude Shannon - Wikipedia",
    // cited_text is the page's words, not in the answer: the whole block is cited.
    start_index: 0,
    end_index: citedText.length,
    content: "Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician, electrical engineer, computer scientist, cryptographer and i...",
  };

  test("body: the search is one service:web_search part at its call, citations are url_citations, the usage counts the search", () => {
    const c = call();
    const response = fromAnthropicMessage(BODY, c);
    expect(response.parts).toEqual([
      { type: "text", text: "I'll search for when Claude Shannon was born." },
      {
        type: "server-tool",
        id: SEARCH_ID,
        callId: SEARCH_ID,
        name: "service:web_search",
        arguments: '{"query":"claude shannon birth date"}',
        status: "completed",
        result: expectedResult,
      },
      { type: "text", text: "Based on the search results, " },
      { type: "text", text: citedText, annotations: [citation] },
      { type: "text", text: "." },
    ]);
    expect(response.usage.serverTools).toEqual(FX.expect.serverTools!);
    expect(c.request.warnings).toEqual([]);
  });

  test("a Messages client's own web_search_20250305 keeps Anthropic's tool name, so its blocks come back as they were", () => {
    const response = fromAnthropicMessage(BODY, call([TYPED]));
    const part = response.parts[1] as ServerToolPart;
    expect(part.name).toBe("web_search");
    // The Messages encoder shows the part as exactly the two blocks Anthropic sent.
    expect(serverToolUseBlock(part).block).toEqual(BODY.content[1]!);
    expect(serverToolResultBlock(part)).toEqual(BODY.content[2]!);
  });

  test("stream: server-tool-start once the query is whole, server-tool-end from the result block, annotations on the text-end", async () => {
    const out = await streamed();
    const tools = out.filter((e) => e.type === "server-tool-start" || e.type === "server-tool-end");
    expect(tools).toEqual([
      { type: "server-tool-start", id: SEARCH_ID, callId: SEARCH_ID, name: "service:web_search", arguments: '{"query": "claude shannon birth date"}' },
      { type: "server-tool-end", id: SEARCH_ID, status: "completed", result: expectedResult },
    ]);
    // The call is announced after the preceding text ended and before the next text starts.
    const types = out.map((e) => e.type);
    expect(types.indexOf("server-tool-start")).toBeGreaterThan(types.indexOf("text-end"));
    expect(out.find((e) => e.type === "text-end" && e.annotations)).toEqual({ type: "text-end", id: "text-4", annotations: [citation] });
    expect(out.filter((e) => e.type === "usage").at(-1)).toMatchObject({ usage: { serverTools: { web_search_requests: 1 } } });
  });

  test("collect(stream) has the parts of the non-streamed reply", async () => {
    const fromStream = await collect((async function* () {
      yield* await streamed();
    })());
    const fromBody = fromAnthropicMessage(BODY, call());
    const normalise = (parts: typeof fromBody.parts) =>
      parts.map((part) => (part.type === "server-tool" ? { ...part, arguments: JSON.parse(part.arguments) as unknown } : part));
    expect(normalise(fromStream.parts)).toEqual(normalise(fromBody.parts));
    expect(fromStream.usage.serverTools).toEqual({ web_search_requests: 1 });
  });

  test("a failed search (web_search_tool_result_error) is a failed part with Anthropic's error code", async () => {
    const error = { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" };
    const content = BODY.content.map((block) => (block.type === "web_search_tool_result" ? { ...block, content: error } : block));
    const part = fromAnthropicMessage({ ...BODY, content }, call()).parts[1] as ServerToolPart;
    expect(part).toMatchObject({ status: "failed", error: "max_uses_exceeded" });
    expect(part.result).toBeUndefined();
    expect(serverToolResultBlock(part)).toEqual({ type: "web_search_tool_result", tool_use_id: SEARCH_ID, content: error });

    const frames = FX.sse.map((frame) => {
      const data = frame.data as { content_block?: { type?: string } };
      return data.content_block?.type === "web_search_tool_result" ? { data: { ...data, content_block: { ...data.content_block, content: error } } } : frame;
    });
    const end = (await streamed(frames)).find((e) => e.type === "server-tool-end");
    expect(end).toEqual({ type: "server-tool-end", id: SEARCH_ID, status: "failed", error: "max_uses_exceeded" });
  });

  test("a citation whose cited text the block quotes is cited over that span", () => {
    const text = 'He wrote "A Mathematical Theory of Communication" in 1948.';
    const quoted = "A Mathematical Theory of Communication";
    const body = {
      ...BODY,
      content: [{ type: "text", text, citations: [{ type: "web_search_result_location", url: WIKI, title: "W", encrypted_index: "x", cited_text: quoted }] }],
    };
    const [part] = fromAnthropicMessage(body, call()).parts;
    const start = text.indexOf(quoted);
    expect(part).toEqual({ type: "text", text, annotations: [{ type: "url_citation", url: WIKI, title: "W", start_index: start, end_index: start + quoted.length, content: quoted }] });
  });

  test("a search still running when the reply stopped (pause_turn) is incomplete; a result without its call is reported", () => {
    const c = call();
    const useOnly = fromAnthropicMessage({ ...BODY, content: [BODY.content[1]!], stop_reason: "pause_turn" }, c);
    expect(useOnly.parts).toEqual([expect.objectContaining({ type: "server-tool", id: SEARCH_ID, status: "incomplete" })]);
    const resultOnly = fromAnthropicMessage({ ...BODY, content: [BODY.content[2]!] }, c);
    expect(resultOnly.parts).toEqual([]);
    expect(c.request.warnings.map((w) => w.field)).toEqual(["content.web_search_tool_result"]);
  });
});

describe("anthropic native web search: the history", () => {
  const searchPart = (): ServerToolPart => fromAnthropicMessage(BODY, call()).parts[1] as ServerToolPart;
  const history = (part: ServerToolPart) =>
    req({
      tools: [NATIVE],
      messages: [
        { role: "user", parts: [{ type: "text", text: "When was Shannon born?" }] },
        { role: "assistant", parts: [part, { type: "text", text: "April 30, 1916." }] },
        { role: "user", parts: [{ type: "text", text: "Where?" }] },
      ],
    });

  test("a search Anthropic ran goes back as its server_tool_use + web_search_tool_result blocks, encrypted content kept", () => {
    const request = history(searchPart());
    const body = bodyOf(request);
    expect(body.messages[1]?.content).toEqual([BODY.content[1]!, BODY.content[2]!, { type: "text", text: "April 30, 1916." }]);
    expect(request.warnings).toEqual([]);
  });

  test("a search without Anthropic's encrypted results (shown by another format, or the gateway's) is dropped with a warning", () => {
    const part = searchPart();
    const bare = { ...part, result: { query: "q", results: [{ url: WIKI, title: "W" }] } };
    const request = history(bare);
    expect(bodyOf(request).messages[1]?.content).toEqual([{ type: "text", text: "April 30, 1916." }]);
    expect(request.warnings).toEqual([expect.objectContaining({ code: "unsupported_field", field: "messages.assistant.server-tool" })]);
    const gateways = history({ ...part, id: "st_gw_1" });
    expect(bodyOf(gateways).messages[1]?.content).toEqual([{ type: "text", text: "April 30, 1916." }]);
  });

  test("a failed search goes back with its error code (no encrypted content needed)", () => {
    const body = bodyOf(history({ ...searchPart(), status: "failed", result: undefined, error: "too_many_requests" }));
    expect(body.messages[1]?.content[1]).toEqual({ type: "web_search_tool_result", tool_use_id: SEARCH_ID, content: { type: "web_search_tool_result_error", error_code: "too_many_requests" } });
  });
});
