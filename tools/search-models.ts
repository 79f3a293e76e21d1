/**
 * `service:experimental__search_models`: lets the model look up models
 * of this gateway's catalog. Request entry parameters `{max_results?: 1–20, default 5}`; model arguments
 * `{query?, input_modalities?, output_modalities?, min_context_length?, series?}`; result
 * `{models: [{id, name, description, context_length, input_modalities, output_modalities, series}], total_results, showing}`.
 * Free.
 *
 * What the catalog knows, and so what is searched:
 * - `name`/`description` come from the model config (`name`, `description`) when the catalog view carries them;
 *   otherwise the name is the id and the description is empty.
 * - `context_length` is the largest context of the model's endpoints (the model can serve that much somewhere);
 *   null when no endpoint states one (such a model never passes a `min_context_length` filter).
 * - Modalities: input is `["text"]` (the catalog records no input modalities); output is what the model config's
 *   `output_modalities` says over its endpoints (`["text", "image"]` for an image model), `["text"]` when it says
 *   nothing. A filter asking for anything else (audio, …) finds nothing rather than guessing.
 * - `series` is the vendor prefix of the id (`acme/model-a` → `acme`; an id without `/` is its own series): it is the
 *   one family grouping every configured id has, whereas family names (GPT, Claude, …) would need a table that goes
 *   stale. The `series` filter compares it case-insensitively.
 */
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { defineTool } from "../core/sdk/index.ts";
import type { ModelView } from "../core/sdk/index.ts";

export const DEFAULT_MAX_RESULTS = 5;
/** Modalities every catalog model has (see the header). */
const MODALITIES = ["text"] as const;

const ParametersSchema = Type.Object(
  { max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: DEFAULT_MAX_RESULTS })) },
  { additionalProperties: false },
);

const Modalities = (direction: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
    maxItems: 8,
    description: `Only models with all of these as ${direction} (e.g. ["text"], or ["image"] for image models).`,
  });

const ArgumentsSchema = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 200, description: "Words to find in the model id, name or description (case-insensitive; every word must match)." })),
    input_modalities: Type.Optional(Modalities("input")),
    output_modalities: Type.Optional(Modalities("output")),
    min_context_length: Type.Optional(Type.Integer({ minimum: 0, description: "Only models with at least this many tokens of context." })),
    series: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Model vendor/series: the id prefix before "/" (e.g. "acme" for "acme/model-a").' })),
  },
  { additionalProperties: false },
);
const argumentsCheck = TypeCompiler.Compile(ArgumentsSchema);

export interface ModelSummary {
  id: string;
  name: string;
  description: string;
  context_length: number | null;
  input_modalities: string[];
  output_modalities: string[];
  series: string;
}

/** The model metadata a catalog view may add to `ModelView` (model config `name` / `description`). */
type DescribedModel = ModelView & { readonly name?: string | undefined; readonly description?: string | undefined };

export function seriesOf(id: string): string {
  const slash = id.indexOf("/");
  return slash > 0 ? id.slice(0, slash) : id;
}

export function summarize(model: ModelView): ModelSummary {
  const described = model as DescribedModel;
  const contexts = model.endpoints.map((e) => e.contextLength).filter((n): n is number => typeof n === "number");
  return {
    id: model.id,
    name: typeof described.name === "string" && described.name !== "" ? described.name : model.id,
    description: typeof described.description === "string" ? described.description : "",
    context_length: contexts.length > 0 ? Math.max(...contexts) : null,
    input_modalities: [...MODALITIES],
    output_modalities: outputModalitiesOf(model),
    series: seriesOf(model.id),
  };
}

/** Every output modality some endpoint of the model declares; `["text"]` when none declares any. */
function outputModalitiesOf(model: ModelView): string[] {
  const declared = new Set(model.endpoints.flatMap((endpoint) => endpoint.outputModalities ?? []));
  return declared.size === 0 ? [...MODALITIES] : [...declared];
}

/** 0 when the model does not match; otherwise higher is a better match (the whole query in the id ranks first). */
function score(model: ModelSummary, query: string, words: readonly string[]): number {
  const id = model.id.toLowerCase();
  const name = model.name.toLowerCase();
  const description = model.description.toLowerCase();
  let total = 1;
  for (const word of words) {
    const inId = id.includes(word);
    const inName = name.includes(word);
    const inDescription = description.includes(word);
    if (!inId && !inName && !inDescription) return 0;
    total += (inId ? 4 : 0) + (inName ? 2 : 0) + (inDescription ? 1 : 0);
  }
  if (query !== "") {
    if (id === query || name === query) total += 100;
    else if (id.includes(query)) total += 40;
    else if (name.includes(query)) total += 20;
    else if (description.includes(query)) total += 10;
  }
  return total;
}

const hasAll = (have: readonly string[], wanted: readonly string[] | undefined) =>
  (wanted ?? []).every((m) => have.includes(m.trim().toLowerCase()));

export default defineTool({
  id: "service:experimental__search_models",
  description: "Searches the models available on this gateway by name, description, modality, context length and series.",
  parametersSchema: ParametersSchema,
  argumentsSchema: ArgumentsSchema,
  async run(args, ctx) {
    const bad = argumentsCheck.Errors(args).First();
    if (bad) throw new Error(`invalid arguments${bad.path ? ` (${bad.path.slice(1)})` : ""}: ${bad.message}`);
    const { query: rawQuery, input_modalities, output_modalities, min_context_length, series } = args as {
      query?: string;
      input_modalities?: string[];
      output_modalities?: string[];
      min_context_length?: number;
      series?: string;
    };
    const limit = typeof ctx.parameters.max_results === "number" ? ctx.parameters.max_results : DEFAULT_MAX_RESULTS;
    const query = (rawQuery ?? "").trim().toLowerCase();
    const words = query.split(/\s+/).filter(Boolean);
    const wantedSeries = series?.trim().toLowerCase();
    const matches: Array<{ model: ModelSummary; score: number }> = [];
    for (const view of ctx.catalog.models()) {
      const model = summarize(view);
      if (!hasAll(model.input_modalities, input_modalities) || !hasAll(model.output_modalities, output_modalities)) continue;
      if (min_context_length !== undefined && (model.context_length === null || model.context_length < min_context_length)) continue;
      if (wantedSeries !== undefined && model.series.toLowerCase() !== wantedSeries) continue;
      const s = score(model, query, words);
      if (s > 0) matches.push({ model, score: s });
    }
    matches.sort((a, b) => b.score - a.score || a.model.id.localeCompare(b.model.id));
    const models = matches.slice(0, limit).map((m) => m.model);
    return { models, total_results: matches.length, showing: models.length };
  },
});
