/**
 * OpenAI's own web search (a native `service:web_search`): the tool and `include` sent, and a search turn's
 * `web_search_call` item and url citations decoded into canonical parts and events (result and stream).
 */
import { describe, expect, test } from "bun:test";
import { collect } from "../../../../core/model/collect.ts";
import type { ServerToolPart } from "../../../../core/model/parts.ts";
import type { CanonicalRequest, Tool } from "../../../../core/model/request.ts";
import { toResponsesBody } from "../../../../providers/openai-responses/request.ts";
import { fromResponsesResult } from "../../../../providers/openai-responses/response.ts";
import { responsesStreamToEvents } from "../../../../providers/openai-responses/stream.ts";
import type { WireResponse } from "../../../../providers/openai-responses/wire.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { fixture } from "../../../support/fake-upstream/fixtures.ts";
import { encodeFrames } from "../../../support/fake-upstream/sse.ts";
import { canonicalRequest, drain, providerCall, streamOf, target } from "../helpers.ts";

const NATIVE: Tool = { kind: "server", type: "service:web_search", parameters: { engine: "native" } };
const FX = fixture("openai-responses", "web-search");
const RESULT = FX.json as WireResponse;
const SEARCH_ID = "ws_68b2c4d2a1c8819aa3e4f5061728394a";
const WIKI = "https://en.wikipedia.org/wiki/Claude_Shannon";
const BRIT = "https://www.britannica.com/biography/Claude-Shannon";

const bodyOf = (request: CanonicalRequest) => toResponsesBody(request, target({ upstreamModel: "gpt-5" }), false);
const call = () => providerCall({ request: canonicalRequest({ tools: [NATIVE] }), target: target({ providerId: "openai-responses", upstreamModel: "gpt-5" }) });
const streamed = (frames = FX.sse) => drain(responsesStreamToEvents(parseSse(streamOf(encodeFrames(frames, "named"))), call()));

const expectedPart: ServerToolPart = {
  type: "server-tool",
  id: SEARCH_ID,
  callId: SEARCH_ID,
  name: "service:web_search",
  arguments: '{"query":"claude shannon birth date"}',
  status: "completed",
  result: { query: "claude shannon birth date", results: [{ url: WIKI }, { url: BRIT }] },
};
const text = FX.expect.text as string;
const link = `[en.wikipedia.org](${WIKI}?utm_source=openai)`;
const citation = { type: "url_citation", start_index: text.indexOf(link), end_index: text.indexOf(link) + link.length, title: "Claude Shannon - Wikipedia", url: `${WIKI}?utm_source=openai` };

describe("openai-responses native web search: the request", () => {
  test("a native service:web_search becomes OpenAI's web_search tool, and the sources are asked for", () => {
    const request = canonicalRequest({
      tools: [
        {
          kind: "server",
          type: "service:web_search",
          parameters: {
            engine: "native",
            search_context_size: "high",
            allowed_domains: ["https://en.wikipedia.org/"],
            user_location: { type: "approximate", country: "US", city: "Boston" },
            max_uses: 2,
          },
        },
      ],
    });
    const body = bodyOf(request);
    expect(body.tools).toEqual([
      { type: "web_search", search_context_size: "high", user_location: { type: "approximate", country: "US", city: "Boston" }, filters: { allowed_domains: ["en.wikipedia.org"] } },
    ]);
    expect(body.include).toEqual(["web_search_call.action.sources"]);
    expect(request.warnings).toEqual([expect.objectContaining({ code: "unsupported_field", field: "tools[0].parameters.max_uses" })]);
  });

  test("excluded_domains cannot be honoured: said; a search the gateway runs is still not sent", () => {
    const request = canonicalRequest({ tools: [{ ...NATIVE, parameters: { engine: "native", excluded_domains: ["spam.example"] } }, { kind: "server", type: "service:web_search" }] });
    const body = bodyOf(request);
    expect(body.tools).toEqual([{ type: "web_search" }]);
    expect(request.warnings.map((w) => w.field)).toEqual(["tools[0].parameters.excluded_domains", "tools[1]"]);
  });

  test("without a native search nothing is included", () => {
    expect(bodyOf(canonicalRequest()).include).toBeUndefined();
  });
});

describe("openai-responses native web search: the reply", () => {
  test("result: the web_search_call is a service:web_search part with its sources; the url_citation reaches the text; the search is counted", () => {
    const response = fromResponsesResult(RESULT, call());
    expect(response.parts).toEqual([expectedPart, { type: "text", text, annotations: [citation] }]);
    expect(response.warnings).toEqual([]);
    expect(response.usage.serverTools).toEqual({ web_search_requests: 1 });
    expect(response.usage.input.total).toBe(8457);
    expect(response.finish).toEqual({ reason: "stop", raw: "completed" });
  });

  test("stream: the bare added item waits for its done (which has the query), annotation.added reaches the text-end", async () => {
    const out = await streamed();
    expect(out.filter((e) => e.type === "server-tool-start" || e.type === "server-tool-end")).toEqual([
      { type: "server-tool-start", id: SEARCH_ID, callId: SEARCH_ID, name: "service:web_search", arguments: '{"query":"claude shannon birth date"}' },
      { type: "server-tool-end", id: SEARCH_ID, status: "completed", result: expectedPart.result },
    ]);
    expect(out.find((e) => e.type === "text-end")).toMatchObject({ annotations: [citation] });
    expect(out.find((e) => e.type === "usage")).toMatchObject({ usage: { serverTools: { web_search_requests: 1 } } });
    const collected = await collect((async function* () {
      yield* out;
    })());
    expect(collected.parts).toEqual(fromResponsesResult(RESULT, call()).parts);
  });

  test("stream: annotation.added alone (a done part without annotations) still annotates the text", async () => {
    const frames = FX.sse.map((frame) => {
      const data = frame.data as { type: string; part?: Record<string, unknown>; item?: Record<string, unknown> };
      if (data.type === "response.content_part.done") return { data: { ...data, part: { ...data.part, annotations: [] } } };
      return frame;
    });
    const end = (await streamed(frames)).find((e) => e.type === "text-end");
    expect(end).toMatchObject({ annotations: [citation] });
  });

  test("an added item that already names its query is announced at once; a failed search is a failed part", async () => {
    const frames = FX.sse.map((frame) => {
      const data = frame.data as { type: string; item?: Record<string, unknown> };
      if (data.type === "response.output_item.added" && data.item?.type === "web_search_call") {
        return { data: { ...data, item: { ...data.item, action: { type: "search", query: "claude shannon birth date" } } } };
      }
      if (data.type === "response.output_item.done" && data.item?.type === "web_search_call") return { data: { ...data, item: { ...data.item, status: "failed" } } };
      return frame;
    });
    const out = await streamed(frames);
    const types = out.map((e) => e.type);
    expect(types.indexOf("server-tool-start")).toBeLessThan(types.indexOf("text-start"));
    expect(out.find((e) => e.type === "server-tool-end")).toEqual({ type: "server-tool-end", id: SEARCH_ID, status: "failed", error: "web search failed" });
  });

  test("an open_page action is a search result of its own page", () => {
    const item = { id: "ws_2", type: "web_search_call", status: "completed", action: { type: "open_page", url: BRIT } };
    const response = fromResponsesResult({ ...RESULT, output: [item] }, call());
    expect(response.parts).toEqual([
      { type: "server-tool", id: "ws_2", callId: "ws_2", name: "service:web_search", arguments: `{"url":"${BRIT}"}`, status: "completed", result: { query: "", results: [{ url: BRIT }] } },
    ]);
  });
});
