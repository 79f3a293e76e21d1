/** The public shapes of presets and versions (spec "Preset"): UUIDs and ISO 8601 timestamps. */
import type { PresetRecord, PresetVersionRecord } from "../store/types/presets.ts";

const iso = (ms: number): string => new Date(ms).toISOString();

/** A preset version object. `system_prompt` is a string in the spec, so a preset without one shows "". */
export function versionView(version: PresetVersionRecord): Record<string, unknown> {
  return {
    id: version.id,
    preset_id: version.presetId,
    version: version.version,
    config: version.config,
    system_prompt: version.systemPrompt ?? "",
    creator_id: version.creatorId,
    created_at: iso(version.createdAt),
    updated_at: iso(version.updatedAt),
  };
}

/** A preset object with its designated version inline. */
export function presetView(preset: PresetRecord): Record<string, unknown> {
  return {
    id: preset.id,
    name: preset.name,
    slug: preset.slug,
    description: preset.description,
    status: preset.status,
    status_updated_at: preset.statusUpdatedAt === null ? null : iso(preset.statusUpdatedAt),
    created_at: iso(preset.createdAt),
    updated_at: iso(preset.updatedAt),
    creator_user_id: preset.creatorUserId,
    workspace_id: preset.workspaceId,
    designated_version_id: preset.designatedVersionId,
    designated_version: versionView(preset.designatedVersion),
  };
}
