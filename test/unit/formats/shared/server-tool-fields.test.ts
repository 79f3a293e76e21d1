/** core/formats/shared/server-tool-fields.ts: the per-tool fields of a server-tool item. */
import { describe, expect, test } from "bun:test";
import type { ServerToolPart } from "../../../../core/model/parts.ts";
import { serverToolFields } from "../../../../core/formats/shared/server-tool-fields.ts";
import { replayedServerToolPart } from "../../../../core/formats/shared/server-tool-part.ts";
import { serverToolRequests, serverToolUseDetails } from "../../../../core/formats/shared/server-tool-usage.ts";
import { emptyUsage } from "../../../../core/model/usage.ts";

function part(name: string, args: unknown, result?: unknown, extra: Partial<ServerToolPart> = {}): ServerToolPart {
  const p: ServerToolPart = { type: "server-tool", id: "st_1", callId: "call_1", name, arguments: JSON.stringify(args), status: "completed", ...extra };
  if (result !== undefined) p.result = result;
  return p;
}

describe("serverToolFields", () => {
  test("web_search: the query and the result URLs as sources", () => {
    const result = { query: "bun", results: [{ title: "Bun", url: "https://bun.sh", snippet: "fast" }, { title: "Docs", url: "https://bun.sh/docs" }] };
    expect(serverToolFields(part("service:web_search", { query: "bun runtime" }, result))).toEqual({
      action: { type: "search", query: "bun runtime", sources: [{ type: "url", url: "https://bun.sh" }, { type: "url", url: "https://bun.sh/docs" }] },
    });
  });

  test("web_search over its limit: no sources and the tool's error", () => {
    const result = { query: "bun", results: [], error: "max_uses_exceeded", message: "web search may run at most 1 time(s)" };
    expect(serverToolFields(part("service:web_search", { query: "bun" }, result))).toEqual({ action: { type: "search", query: "bun", sources: [] }, error: "max_uses_exceeded" });
  });

  test("web_fetch: url, title, content and the HTTP status from the fetch result", () => {
    const result = { url: "https://bun.sh/", title: "Bun", content: "# Bun", status: "completed", retrieved_at: "2025-07-15T18:30:00Z", status_code: 200, content_type: "text/html", truncated: false };
    expect(serverToolFields(part("service:web_fetch", { url: "https://bun.sh" }, result))).toEqual({ url: "https://bun.sh/", title: "Bun", content: "# Bun", httpStatus: 200 });
  });

  test("a failed web_fetch keeps the url it was asked for and says why", () => {
    const failed = part("service:web_fetch", { url: "https://bun.sh/missing" }, undefined, { status: "failed", error: "HTTP 404: Not Found" });
    expect(serverToolFields(failed)).toEqual({ url: "https://bun.sh/missing", error: "HTTP 404: Not Found" });
  });

  test("datetime, image_generation, search_models and tool_search show their own fields", () => {
    expect(serverToolFields(part("service:datetime", {}, { datetime: "2025-07-15T14:30:00.000-04:00", timezone: "America/New_York" }))).toEqual({
      datetime: "2025-07-15T14:30:00.000-04:00",
      timezone: "America/New_York",
    });
    expect(serverToolFields(part("service:image_generation", { prompt: "a cat" }, { status: "ok", imageUrl: "https://img.example/1.png", revised_prompt: "a small cat" }))).toEqual({
      imageUrl: "https://img.example/1.png",
      prompt: "a cat",
      revisedPrompt: "a small cat",
    });
    expect(serverToolFields(part("service:experimental__search_models", { query: "claude" }, { models: [], total_results: 0, showing: 0 }))).toEqual({ query: "claude" });
    expect(serverToolFields(part("service:tool_search", { pattern: "weather" }, { tools: ["get_weather"] }))).toEqual({ query: "weather" });
  });

  test("any other tool: an object result is spread, envelope keys go under `result`", () => {
    expect(serverToolFields(part("service:bash", { command: "ls" }, { command: "ls", stdout: "a\n", stderr: "", exitCode: 0 }))).toEqual({ command: "ls", stdout: "a\n", stderr: "", exitCode: 0 });
    expect(serverToolFields(part("service:fusion", {}, { status: "ok", analysis: "A", responses: [] }))).toEqual({ analysis: "A", responses: [], result: { status: "ok" } });
    // Both envelope keys and its own `result`: shown whole, nothing lost.
    expect(serverToolFields(part("service:third_party", {}, { status: "ok", result: "x" }))).toEqual({ result: { status: "ok", result: "x" } });
  });

  test("any other tool: a non-object result is `result`; a failure adds `error` and no result", () => {
    expect(serverToolFields(part("acme:lookup", {}, ["a", "b"]))).toEqual({ result: ["a", "b"] });
    expect(serverToolFields(part("acme:count", {}, 3))).toEqual({ result: 3 });
    expect(serverToolFields(part("acme:lookup", {}, undefined, { status: "failed", error: "timed out after 30000 ms" }))).toEqual({ error: "timed out after 30000 ms" });
  });
});

describe("replayedServerToolPart", () => {
  test("call id defaults to the id, arguments to {}; status from the error when absent; in_progress is incomplete", () => {
    expect(replayedServerToolPart({ id: "st_1", name: "service:datetime" })).toEqual({ type: "server-tool", id: "st_1", callId: "st_1", name: "service:datetime", arguments: "{}", status: "completed" });
    expect(replayedServerToolPart({ id: "st_1", name: "x", error: "boom" }).status).toBe("failed");
    expect(replayedServerToolPart({ id: "st_1", name: "x", status: "in_progress" }).status).toBe("incomplete");
    expect(replayedServerToolPart({ id: "st_1", callId: "call_9", name: "x", status: "failed", error: "boom", result: { a: 1 } })).toEqual({
      type: "server-tool", id: "st_1", callId: "call_9", name: "x", arguments: "{}", status: "failed", result: { a: 1 }, error: "boom",
    });
  });
});

describe("server-tool usage", () => {
  test("details: the three counters (missing ones 0) only when one of them is there", () => {
    expect(serverToolUseDetails(emptyUsage())).toBeUndefined();
    expect(serverToolUseDetails({ ...emptyUsage(), serverTools: { web_fetch_requests: 2 } })).toBeUndefined();
    expect(serverToolUseDetails({ ...emptyUsage(), serverTools: { tool_calls_requested: 3, tool_calls_executed: 2 } })).toEqual({ tool_calls_requested: 3, tool_calls_executed: 2, web_search_requests: 0 });
  });

  test("requests: per-tool counters with both named ones, without the loop's counters", () => {
    expect(serverToolRequests(emptyUsage())).toBeUndefined();
    expect(serverToolRequests({ ...emptyUsage(), serverTools: { tool_calls_requested: 3, tool_calls_executed: 3, web_search_requests: 1 } })).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
  });
});
