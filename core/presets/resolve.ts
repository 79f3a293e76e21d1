/** Resolves a request's preset reference against the caller's workspace (spec "Errors" 404). */
import { errors } from "../errors.ts";
import type { InboundFormat } from "../model/request.ts";
import type { PresetRecord, PresetRepo } from "../store/types/presets.ts";
import { mergePreset } from "./apply.ts";
import { isRecord } from "./json.ts";
import { presetReferenceOf } from "./reference.ts";

/**
 * When `body` names a preset, replaces its contents in place with the merged body (in place because the HTTP edge
 * validates the very object it parsed). Uses the preset's designated version, which is always its newest. Unknown
 * presets, and presets of other workspaces, are 404. Returns the preset applied, if any.
 */
export async function applyPresetReference(presets: PresetRepo, workspaceId: string, format: InboundFormat, body: unknown): Promise<PresetRecord | undefined> {
  if (!isRecord(body)) return undefined;
  const reference = presetReferenceOf(body);
  if (!reference) return undefined;
  const preset = await presets.get(workspaceId, reference.slug);
  if (!preset) throw errors.notFound(`Preset not found: ${reference.slug}`);
  const merged = mergePreset(format, body, preset.designatedVersion, reference.model);
  for (const key of Object.keys(body)) delete body[key];
  Object.assign(body, merged);
  return preset;
}
