/** Workspace records and the workspace repository contract (implemented in ../repos/workspaces.ts). */

/** A workspace: keys, presets, batches and generations each belong to one. */
export interface Workspace {
  id: string;
  name: string;
  createdAt: number;
}

/** Workspaces (the default one is created at first start). */
export interface WorkspaceRepo {
  /** The workspace created at first start; created if missing. */
  ensureDefault(): Promise<Workspace>;
  get(id: string): Promise<Workspace | undefined>;
  /** A new workspace with a random UUID. */
  create(name: string): Promise<Workspace>;
}
