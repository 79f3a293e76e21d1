/** Admissions to beta features (the `alignment` plugin): which workspaces and keys may use one. */
export type AdmissionScope = "key" | "workspace";

export interface AdmissionRecord {
  feature: string;
  scope: AdmissionScope;
  /** A key hash or a workspace id. */
  target: string;
  workspaceId: string;
  createdAt: number;
}

export interface AdmissionRepo {
  /** Adds admissions not present yet; returns how many were added. */
  admit(feature: string, workspaceId: string, scope: AdmissionScope, targets: readonly string[]): Promise<number>;
  /** Removes admissions; returns how many existed. */
  revoke(feature: string, workspaceId: string, scope: AdmissionScope, targets: readonly string[]): Promise<number>;
  list(feature: string, workspaceId: string): Promise<AdmissionRecord[]>;
  /** Whether the key, or its workspace, is admitted. */
  admitted(feature: string, workspaceId: string, keyHash: string): Promise<boolean>;
}
