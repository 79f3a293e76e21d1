/**
 * Using a preset: the preset's config, in the client's format, shallow-merged
 * under the request (request fields win), its system prompt prepended, tools merged by identity.
 *
 * The merge works on the BODY, in the client's wire format, before schema validation and decode — not on the
 * canonical request after decode. Reasons: the merged body is then validated and decoded exactly like a body the
 * client could have sent (the schema's limits and decode's 400 rules apply to the combination, e.g. a preset
 * temperature beside a request `reasoning_effort`); "request fields win" has a precise meaning on body fields, while
 * canonical fields have defaults that hide whether the client set them; and Responses echoes (`instructions`,
 * `temperature`, `tools` …) come out of the merged body with no extra work.
 */
import type { InboundFormat } from "../model/request.ts";
import { CONCEPTS } from "./fields.ts";
import type { Json } from "./json.ts";
import { prependSystemPrompt } from "./system-prompt.ts";
import { mergeTools } from "./tools.ts";
import { fromConfig } from "./translate.ts";

/** What a preset version contributes. */
export interface PresetContent {
  config: Json;
  systemPrompt: string | null;
}

/**
 * The request body with the preset applied. `ownModel` is the model the request asked for itself (undefined when it
 * named only the preset, so the preset's model applies). The input body is not modified.
 */
export function mergePreset(format: InboundFormat, body: Json, preset: PresetContent, ownModel: string | undefined): Json {
  const fromPreset = fromConfig(format, preset.config);
  const request: Json = { ...body };
  delete request.preset;
  if (ownModel === undefined) delete request.model;
  else request.model = ownModel;
  for (const concept of CONCEPTS[format]) {
    if (concept.some((key) => request[key] !== undefined)) for (const key of concept) delete fromPreset[key];
  }
  const merged: Json = { ...fromPreset, ...request };
  const presetTools = Array.isArray(fromPreset.tools) ? fromPreset.tools : [];
  // A malformed request `tools` is left as sent, for validation to reject with its own message.
  if (presetTools.length > 0 && (request.tools === undefined || Array.isArray(request.tools))) {
    merged.tools = mergeTools(format, presetTools, Array.isArray(request.tools) ? request.tools : []);
  }
  if (preset.systemPrompt) prependSystemPrompt(format, merged, preset.systemPrompt);
  return merged;
}
