/** Preset and preset-version records and the preset repository contract (implemented in ../repos/presets.ts). */

/** One numbered, immutable version of a preset (spec "Preset": preset version). */
export interface PresetVersionRecord {
  id: string;
  presetId: string;
  version: number;
  /** The persisted request fields (already filtered to the preset vocabulary). */
  config: Record<string, unknown>;
  systemPrompt: string | null;
  creatorId: string;
  /** Unix ms. */
  createdAt: number;
  updatedAt: number;
}

/** A preset with its designated version inline (spec "Preset"). */
export interface PresetRecord {
  id: string;
  workspaceId: string;
  slug: string;
  name: string;
  description: string | null;
  status: string;
  statusUpdatedAt: number | null;
  createdAt: number;
  updatedAt: number;
  creatorUserId: string;
  designatedVersionId: string;
  designatedVersion: PresetVersionRecord;
}

/** What creating a preset version needs; `now` comes from the injected clock. */
export interface NewPresetVersion {
  workspaceId: string;
  slug: string;
  config: Record<string, unknown>;
  systemPrompt: string | null;
  creatorId: string;
  now: number;
}

/** Presets and their versions (spec "Preset", endpoints 3–4). */
export interface PresetRepo {
  /**
   * Creates the preset when missing and appends version max+1 as its designated version, in one transaction.
   * A lost race on the unique (preset, version) pair is retried; `"conflict"` when retries ran out.
   */
  createVersion(input: NewPresetVersion): Promise<PresetRecord | "conflict">;
  get(workspaceId: string, slug: string): Promise<PresetRecord | undefined>;
  /** Newest update first. */
  list(workspaceId: string, page: { offset: number; limit: number }): Promise<{ presets: PresetRecord[]; total: number }>;
  /** Oldest version first. */
  listVersions(presetId: string, page: { offset: number; limit: number }): Promise<{ versions: PresetVersionRecord[]; total: number }>;
  getVersion(presetId: string, version: number): Promise<PresetVersionRecord | undefined>;
  /** Removes the preset and all its versions; true when it existed. */
  delete(workspaceId: string, slug: string): Promise<boolean>;
}
