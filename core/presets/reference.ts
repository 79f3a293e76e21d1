/**
 * How a request names a preset: `model: "@preset/slug"`, `preset: "slug"` beside a
 * model, or `model: "vendor/model@preset/slug"`.
 */
import { errors } from "../errors.ts";
import { checkSlug } from "./slug.ts";

/** A preset named by a request body. */
export interface PresetReference {
  slug: string;
  /** The model the request itself asks for, once the `@preset/…` part is removed (undefined: use the preset's). */
  model: string | undefined;
}

const MARK = "@preset/";

/** Finds the preset reference in a body, or undefined when it names none. Conflicting references are a 400. */
export function presetReferenceOf(body: Record<string, unknown>): PresetReference | undefined {
  const field = body.preset;
  const model = typeof body.model === "string" ? body.model : undefined;
  const at = model?.lastIndexOf(MARK) ?? -1;
  const fromModel = model !== undefined && at >= 0 ? model.slice(at + MARK.length) : undefined;
  if (field !== undefined && field !== null && typeof field !== "string") throw errors.invalid("preset: must be a string", { param: "preset" });
  const fromField = typeof field === "string" ? field : undefined;
  if (fromField === undefined && fromModel === undefined) return undefined;
  if (fromField !== undefined && fromModel !== undefined && fromField !== fromModel) {
    throw errors.invalid(`The request names two presets: preset "${fromField}" and model "${model}"`, { param: "preset" });
  }
  const slug = checkSlug(fromField ?? fromModel ?? "");
  // `vendor/model@preset/slug` keeps `vendor/model`; `@preset/slug` leaves the model to the preset.
  const ownModel = fromModel !== undefined ? model?.slice(0, at) || undefined : model;
  return { slug, model: ownModel };
}
