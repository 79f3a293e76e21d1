import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { defineTool } from "../../../core/registry/define.ts";
import { Registry } from "../../../core/registry/registry.ts";
import { declaredTools, modelTools } from "../../../core/tools/declared.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { CatalogView } from "../../../core/routing/catalog-view.ts";
import toolSearch from "../../../tools/tool-search.ts";
import webFetch from "../../../tools/web-fetch/index.ts";
import webSearch from "../../../tools/web-search/index.ts";
import { canonicalRequest, fakeHelpers } from "../pipeline/helpers.ts";

const lookup = defineTool({
  id: "service:lookup",
  description: "Looks things up.",
  argumentsSchema: { type: "object", properties: { q: { type: "string" } } },
  parametersSchema: Type.Object({ max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })) }, { additionalProperties: false }),
  formats: ["responses", "messages"],
  declare({ parameters, config, field }) {
    if (parameters.max_results === 4 && config.strict === true) throw new GatewayError("invalid_request", `${field}.max_results: 4 is unlucky`);
  },
  run: async () => ({}),
});

function env(settings: Record<string, Record<string, unknown>> = {}) {
  const registry = new Registry();
  registry.register(lookup, "test");
  registry.register(toolSearch, "test");
  registry.register(webSearch, "test");
  registry.register(webFetch, "test");
  return { registry, settings, catalog: {} as CatalogView, helpers: fakeHelpers() };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return (error as GatewayError).message;
  }
  throw new Error("expected a 400");
}

describe("declaredTools", () => {
  test("no service: tool, nothing to declare", () => {
    expect(declaredTools(canonicalRequest({ tools: [{ kind: "function", name: "f" }] }), env())).toBeUndefined();
  });

  test("unknown names, unknown parameters, out-of-range values and unavailable formats are 400s naming the field", () => {
    const req = (tool: Record<string, unknown>, format: "responses" | "chat" = "responses") => canonicalRequest({ format, tools: [{ kind: "function", name: "f" }, { kind: "server", ...tool } as never] });
    expect(refusal(() => declaredTools(req({ type: "service:nope" }), env()))).toContain("tools[1].type");
    expect(refusal(() => declaredTools(req({ type: "service:lookup", parameters: { colour: 1 } }), env()))).toBe('tools[1].parameters.colour: unknown parameter "colour"');
    expect(refusal(() => declaredTools(req({ type: "service:lookup", parameters: { max_results: 6 } }), env()))).toContain("tools[1].parameters.max_results");
    expect(declaredTools(req({ type: "service:lookup", parameters: { max_results: 5 } }), env())?.list).toHaveLength(1);
    expect(refusal(() => declaredTools(req({ type: "service:lookup" }, "chat"), env()))).toContain("not available");
    expect(refusal(() => declaredTools(req({ type: "service:lookup", parameters: { max_results: 4 } }), env({ lookup: { strict: true } })))).toContain("unlucky");
  });

  test("the model sees each tool as a function; a client function of the same name keeps its name", () => {
    const request = canonicalRequest({
      format: "responses",
      tools: [
        { kind: "function", name: "lookup" },
        { kind: "function", name: "hidden", deferLoading: true },
        { kind: "server", type: "service:lookup" },
        { kind: "server", type: "service:lookup", parameters: { max_results: 2 } },
        { kind: "server", type: "service:tool_search" },
      ],
    });
    const declared = declaredTools(request, env())!;
    expect(declared.list.map((t) => t.modelName)).toEqual(["service_lookup", "lookup_2", "tool_search"]);
    const names = (revealed: string[]) => modelTools(request, declared, new Set(revealed)).map((t) => (t.kind === "function" ? t.name : t.type));
    expect(names([])).toEqual(["lookup", "service_lookup", "lookup_2", "tool_search"]);
    expect(names(["hidden"])).toEqual(["lookup", "hidden", "service_lookup", "lookup_2", "tool_search"]);
  });

  test("defer_loading needs one tool loaded up front in every format, and a tool search on chat and Responses", () => {
    const deferred = { kind: "function" as const, name: "f", deferLoading: true };
    for (const format of ["chat", "responses"] as const) {
      expect(refusal(() => declaredTools(canonicalRequest({ format, tools: [deferred, { kind: "function", name: "g" }] }), env()))).toContain("service:tool_search");
    }
    for (const format of ["chat", "responses", "messages"] as const) {
      expect(refusal(() => declaredTools(canonicalRequest({ format, tools: [deferred, { kind: "server", type: "service:tool_search" }] }), env()))).toContain("not deferred");
      expect(declaredTools(canonicalRequest({ format, tools: [deferred, { kind: "server", type: "service:tool_search" }, { kind: "function", name: "g" }] }), env())?.list).toHaveLength(1);
    }
    // Messages follows Anthropic: a client may search its deferred tools itself (tool_reference results), or rely on
    // Anthropic's own tool search; the deferred tools then go to the adapter as they are.
    expect(declaredTools(canonicalRequest({ format: "messages", tools: [deferred, { kind: "function", name: "g" }] }), env())).toBeUndefined();
    expect(declaredTools(canonicalRequest({ format: "messages", tools: [deferred, { kind: "server", type: "tool_search_tool_regex_20251119" }, { kind: "function", name: "g" }] }), env())).toBeUndefined();
    expect(refusal(() => declaredTools(canonicalRequest({ format: "messages", tools: [deferred] }), env()))).toContain("not deferred");
  });

  test("a tool search cannot itself be deferred, in any spelling", () => {
    const tools = [
      { kind: "function" as const, name: "f", deferLoading: true },
      { kind: "function" as const, name: "g" },
    ];
    for (const format of ["chat", "responses", "messages"] as const) {
      const search = { kind: "server" as const, type: "service:tool_search", deferLoading: true };
      expect(refusal(() => declaredTools(canonicalRequest({ format, tools: [...tools, search] }), env()))).toBe("tools[2].defer_loading: the tool search tool cannot itself be deferred");
    }
    const anthropic = { kind: "server" as const, type: "tool_search_tool_regex_20251119", parameters: { name: "tool_search_tool_regex", defer_loading: true } };
    expect(refusal(() => declaredTools(canonicalRequest({ format: "messages", tools: [anthropic, ...tools] }), env()))).toContain("tools[0].defer_loading");
  });

  test("Anthropic's typed web tools get the gateway's tool beside them, with their settings, when it can run", () => {
    const search = { kind: "server" as const, type: "web_search_20250305", parameters: { name: "web_search", max_uses: 3, blocked_domains: ["b.example"], user_location: { type: "approximate", city: "Paris", region: null } } };
    const fetch = { kind: "server" as const, type: "web_fetch_20250910", parameters: { name: "web_fetch", allowed_domains: ["a.example"], max_content_tokens: 500, citations: { enabled: true } } };
    const request = canonicalRequest({ format: "messages", tools: [{ kind: "function", name: "f" }, search, fetch] });
    const engine = { web_search: { engine: "searxng", base_url: "http://127.0.0.1:9" } };
    const declared = declaredTools(request, env(engine))!;
    expect(declared.list.map((t) => [t.module.id, t.modelName, t.parameters, t.upstreamTool?.type])).toEqual([
      ["service:web_search", "web_search", { max_uses: 3, excluded_domains: ["b.example"], user_location: { type: "approximate", city: "Paris" } }, "web_search_20250305"],
      ["service:web_fetch", "web_fetch", { allowed_domains: ["a.example"], max_content_tokens: 500 }, "web_fetch_20250910"],
    ]);
    // The typed tools are not sent beside their stand-ins: each function carries the typed tool for an upstream that has it.
    const tools = modelTools(request, declared, new Set());
    expect(tools.map((t) => (t.kind === "function" ? [t.name, t.upstreamTool] : [t.type]))).toEqual([
      ["f", undefined],
      ["web_search", { type: "web_search_20250305", parameters: search.parameters }],
      ["web_fetch", { type: "web_fetch_20250910", parameters: fetch.parameters }],
    ]);
    // No search engine configured: only an Anthropic upstream can run the search; the typed tool stays as it came.
    const without = declaredTools(request, env())!;
    expect(without.list.map((t) => t.module.id)).toEqual(["service:web_fetch"]);
    expect(modelTools(request, without, new Set()).map((t) => (t.kind === "function" ? t.name : t.type))).toEqual(["f", "web_search_20250305", "web_fetch"]);
  });
});
