/** service:experimental__search_models: catalog search, filters, ranking, limits and schemas. */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import searchModels, { seriesOf, summarize } from "../../../tools/search-models.ts";
import type { CatalogView, EndpointView, ModelView } from "../../../core/routing/catalog-view.ts";
import type { ToolRunContext } from "../../../core/registry/tool.ts";
import { toolRunContext } from "./run-context.ts";

function endpoint(model: string, contextLength?: number): EndpointView {
  return {
    model,
    provider: "p",
    contextLength,
    maxOutputTokens: undefined,
    pricing: { prompt: 0.000001, completion: 0.000002 },
    latency: undefined,
    throughput: undefined,
    health: "closed",
  };
}

/** A catalog view; `name`/`description` ride along as a view carrying model-config metadata would have them. */
function model(id: string, contexts: Array<number | undefined>, meta: { name?: string; description?: string } = {}): ModelView {
  const view: ModelView & { name?: string; description?: string } = { id, endpoints: contexts.map((c) => endpoint(id, c)), ...meta };
  return view;
}

const MODELS: ModelView[] = [
  model("acme/model-a", [8_000, 32_000], { name: "Model A", description: "Fast general chat model" }),
  model("acme/coder", [128_000], { name: "Acme Coder", description: "Writes code; a chat model for programming" }),
  model("beta/chat-small", [16_000], { name: "Small", description: "Cheap" }),
  model("gamma/vision-x", [undefined], { name: "Vision X", description: "Understands pictures" }),
  model("solo", [4_000]),
];

const catalog: CatalogView = { models: () => MODELS, model: (id) => MODELS.find((m) => m.id === id) };

function ctx(parameters: Record<string, unknown> = {}, view: CatalogView = catalog): ToolRunContext {
  return toolRunContext({ parameters, catalog: view });
}

interface Result {
  models: Array<{ id: string; name: string; description: string; context_length: number | null; input_modalities: string[]; output_modalities: string[]; series: string }>;
  total_results: number;
  showing: number;
}
const search = (args: Record<string, unknown>, parameters: Record<string, unknown> = {}) => searchModels.run(args, ctx(parameters)) as Promise<Result>;
const ids = (result: Result) => result.models.map((m) => m.id);

describe("service:experimental__search_models", () => {
  test("each model is reported with the documented fields", async () => {
    const result = await search({ query: "acme/model-a" });
    expect(result.models[0]).toEqual({
      id: "acme/model-a",
      name: "Model A",
      description: "Fast general chat model",
      context_length: 32_000,
      input_modalities: ["text"],
      output_modalities: ["text"],
      series: "acme",
    });
  });

  test("the query matches id, name and description case-insensitively; best match first", async () => {
    // "chat" is in beta/chat-small's id, and in the descriptions of acme/model-a and acme/coder.
    expect(ids(await search({ query: "CHAT" }))).toEqual(["beta/chat-small", "acme/coder", "acme/model-a"]);
    expect(ids(await search({ query: "acme coder" }))).toEqual(["acme/coder"]);
    expect(ids(await search({ query: "pictures" }))).toEqual(["gamma/vision-x"]);
    expect(ids(await search({ query: "Vision X" }))).toEqual(["gamma/vision-x"]);
  });

  test("every word of the query must match somewhere", async () => {
    expect(ids(await search({ query: "chat programming" }))).toEqual(["acme/coder"]);
    expect(ids(await search({ query: "chat nothing-like-this" }))).toEqual([]);
  });

  test("no query lists every model by id", async () => {
    const result = await search({}, { max_results: 20 });
    expect(ids(result)).toEqual(["acme/coder", "acme/model-a", "beta/chat-small", "gamma/vision-x", "solo"]);
    expect(result.total_results).toBe(5);
    expect(result.showing).toBe(5);
  });

  test("max_results (default 5) limits what is shown, not total_results", async () => {
    const limited = await search({}, { max_results: 2 });
    expect(ids(limited)).toEqual(["acme/coder", "acme/model-a"]);
    expect(limited.total_results).toBe(5);
    expect(limited.showing).toBe(2);
    const many: ModelView[] = Array.from({ length: 8 }, (_, i) => model(`m/model-${i}`, [1000]));
    const byDefault = (await searchModels.run({}, ctx({}, { models: () => many, model: () => undefined }))) as Result;
    expect(byDefault.showing).toBe(5);
    expect(byDefault.total_results).toBe(8);
  });

  test("min_context_length uses the largest endpoint context; unknown context never passes", async () => {
    expect(ids(await search({ min_context_length: 30_000 }))).toEqual(["acme/coder", "acme/model-a"]);
    expect(ids(await search({ min_context_length: 32_001 }))).toEqual(["acme/coder"]);
    const all = await search({ min_context_length: 0 }, { max_results: 20 });
    expect(ids(all)).not.toContain("gamma/vision-x");
    expect(all.total_results).toBe(4);
  });

  test("modality filters are AND; every model is text-only", async () => {
    expect((await search({ input_modalities: ["text"], output_modalities: ["TEXT"] }, { max_results: 20 })).total_results).toBe(5);
    expect((await search({ input_modalities: ["text", "image"] })).total_results).toBe(0);
    expect((await search({ output_modalities: ["image"] })).total_results).toBe(0);
  });

  test("series is the id's vendor prefix, filtered case-insensitively", async () => {
    expect(ids(await search({ series: "ACME" }))).toEqual(["acme/coder", "acme/model-a"]);
    expect(ids(await search({ series: "acme", query: "fast" }))).toEqual(["acme/model-a"]);
    expect(ids(await search({ series: "solo" }))).toEqual(["solo"]);
    expect(seriesOf("a/b/c")).toBe("a");
    expect(seriesOf("plain")).toBe("plain");
  });

  test("a view without name/description: the name is the id, the description empty", () => {
    expect(summarize({ id: "x/y", endpoints: [] })).toMatchObject({ name: "x/y", description: "", context_length: null, series: "x" });
  });

  test("bad arguments are error results naming the argument", async () => {
    await expect(search({ min_context_length: -1 })).rejects.toThrow(/invalid arguments \(min_context_length\)/);
    await expect(search({ min_context_length: 1.5 })).rejects.toThrow(/min_context_length/);
    await expect(search({ query: 7 })).rejects.toThrow(/invalid arguments \(query\)/);
    await expect(search({ input_modalities: "text" })).rejects.toThrow(/input_modalities/);
    await expect(search({ query: "x".repeat(201) })).rejects.toThrow(/query/);
    await expect(search({ vendor: "acme" })).rejects.toThrow(/invalid arguments/);
  });

  test("parametersSchema: max_results is an integer 1-20, nothing else", () => {
    const check = TypeCompiler.Compile(searchModels.parametersSchema as TSchema);
    expect(check.Check({})).toBe(true);
    expect(check.Check({ max_results: 1 })).toBe(true);
    expect(check.Check({ max_results: 20 })).toBe(true);
    expect(check.Check({ max_results: 0 })).toBe(false);
    expect(check.Check({ max_results: 21 })).toBe(false);
    expect(check.Check({ max_results: 2.5 })).toBe(false);
    expect(check.Check({ max_results: "5" })).toBe(false);
    expect(check.Check({ max_results: 5, query: "x" })).toBe(false);
  });

  test("the model sees every documented argument, none required", () => {
    const schema = JSON.parse(JSON.stringify(searchModels.argumentsSchema)) as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(["input_modalities", "min_context_length", "output_modalities", "query", "series"]);
    expect(schema.required).toBeUndefined();
  });
});
