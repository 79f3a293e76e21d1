import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { defineTool } from "../../../core/registry/define.ts";
import { Registry } from "../../../core/registry/registry.ts";
import { declaredTools, modelTools } from "../../../core/tools/declared.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { CatalogView } from "../../../core/routing/catalog-view.ts";
import toolSearch from "../../../tools/tool-search.ts";
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

  test("defer_loading needs a tool search and one tool loaded up front, in every format", () => {
    const deferred = { kind: "function" as const, name: "f", deferLoading: true };
    for (const format of ["chat", "responses", "messages"] as const) {
      expect(refusal(() => declaredTools(canonicalRequest({ format, tools: [deferred] }), env()))).toContain("service:tool_search");
      expect(refusal(() => declaredTools(canonicalRequest({ format, tools: [deferred, { kind: "server", type: "service:tool_search" }] }), env()))).toContain("not deferred");
      expect(declaredTools(canonicalRequest({ format, tools: [deferred, { kind: "server", type: "service:tool_search" }, { kind: "function", name: "g" }] }), env())?.list).toHaveLength(1);
    }
    // An upstream's own tool search (Anthropic's) also satisfies it; the deferred tools then go upstream as they are.
    expect(declaredTools(canonicalRequest({ format: "messages", tools: [deferred, { kind: "server", type: "tool_search_tool_regex_20251119" }, { kind: "function", name: "g" }] }), env())).toBeUndefined();
  });
});
