/** Workspace records and the workspace repository contract (implemented in ../repos/workspaces.ts). */

/** How often a workspace budget starts over; `lifetime` never does (README "Workspaces"). */
export type BudgetInterval = "daily" | "weekly" | "monthly" | "lifetime";

/**
 * A workspace's own settings (README "Workspaces"), stored as JSON with the API's field names. Absent = none.
 * `plugins` holds plugin defaults as a `plugins` entry of a request does (`locked: true` keeps a request from changing
 * them); `rate_limit` applies to the workspace's requests together; `generation_retention_days` bounds how long its
 * generation records are kept.
 */
export interface WorkspaceSettings {
  allowed_models?: string[] | null;
  allowed_providers?: string[] | null;
  plugins?: Array<Record<string, unknown> & { id: string }> | null;
  rate_limit?: { requests: number | null; tokens: number | null; interval_seconds: number } | null;
  generation_retention_days?: number | null;
  default_text_model?: string | null;
  default_image_model?: string | null;
  default_provider_sort?: string | null;
  disabled_server_tools?: string[] | null;
  /** The response cache's default for the workspace's requests (README "Response cache"); the key's and preset's win. */
  cache?: { enabled: boolean; ttl_seconds?: number } | null;
}

/** A workspace: keys, presets, batches, guardrails, containers and generations each belong to one. */
export interface Workspace {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  createdAt: number;
  updatedAt: number | null;
  settings: WorkspaceSettings;
  /** Whether BYOK spending counts against the workspace's budgets. */
  includeByokInBudgets: boolean;
}

/** One spending budget of a workspace. */
export interface WorkspaceBudget {
  workspaceId: string;
  interval: BudgetInterval;
  limitUsd: number;
  createdAt: number;
  updatedAt: number;
}

export interface NewWorkspace {
  name: string;
  slug: string;
  description: string | null;
  settings: WorkspaceSettings;
}

export type WorkspacePatch = Partial<Pick<Workspace, "name" | "slug" | "description" | "settings" | "includeByokInBudgets">>;

/** Workspaces (the default one is created at first start). */
export interface WorkspaceRepo {
  /** The workspace created at first start; created if missing. */
  ensureDefault(): Promise<Workspace>;
  get(id: string): Promise<Workspace | undefined>;
  /** A new workspace with a random UUID; undefined when its slug is taken. */
  create(workspace: NewWorkspace): Promise<Workspace | undefined>;
  /** A new workspace named `name`, with a slug made unique from its name and id (tests, start-up). */
  create(name: string): Promise<Workspace>;
  /** Oldest first. */
  list(opts: { offset: number; limit: number }): Promise<{ workspaces: Workspace[]; total: number }>;
  /** Undefined when missing; throws `SlugTaken` when the new slug is another workspace's. */
  update(id: string, patch: WorkspacePatch): Promise<Workspace | undefined>;
  /** Removes the workspace row and its budgets; true when it existed. */
  delete(id: string): Promise<boolean>;
  budgets(workspaceId: string): Promise<WorkspaceBudget[]>;
  setBudget(workspaceId: string, interval: BudgetInterval, limitUsd: number): Promise<WorkspaceBudget>;
  deleteBudget(workspaceId: string, interval: BudgetInterval): Promise<boolean>;
  /** USD the workspace's generations cost since `since` (Unix ms), BYOK-paid ones only when `includeByok`. */
  costSince(workspaceId: string, since: number): Promise<number>;
  /** Deletes the workspace's generation records created before `before`; how many. */
  purgeGenerations(workspaceId: string, before: number): Promise<number>;
}

/** Thrown by `update` when the slug is another workspace's. */
export class SlugTaken extends Error {
  constructor(readonly slug: string) {
    super(`workspace slug already in use: ${slug}`);
  }
}
