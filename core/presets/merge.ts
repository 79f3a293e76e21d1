/**
 * The one place a request body gets its presets, before it is validated: an HTTP inference route, `POST
 * /messages/count_tokens` and each item of a batch submission call this and nothing else of presets, so a request
 * means the same whichever way it came. A Responses `prompt` template is a preset too (./prompt-template.ts; a
 * request naming both is refused there), then a named preset (`preset`, `@preset/…`: ./resolve.ts). The body is
 * changed in place: the edge validates the very object it parsed. Returns the applied preset's stored settings (the
 * named preset's designated version, else the template's), for what is no request field (its response-cache setting).
 */
import type { InboundFormat } from "../model/request.ts";
import type { PresetRepo, PresetVersionRecord } from "../store/types/presets.ts";
import { applyPromptTemplate } from "./prompt-template.ts";
import { applyPresetReference } from "./resolve.ts";

export async function mergePresets(presets: PresetRepo, workspaceId: string, format: InboundFormat, body: unknown): Promise<PresetVersionRecord["config"] | undefined> {
  const template = await applyPromptTemplate(presets, workspaceId, format, body);
  const preset = await applyPresetReference(presets, workspaceId, format, body);
  return preset?.designatedVersion.config ?? template?.config;
}
