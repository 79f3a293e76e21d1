/** BYOK credential records and their repository contract (implemented in ../repos/byok.ts). */

/** A stored provider credential of a workspace, or of one key of it (`keyHash`). `secret` is ciphertext. */
export interface ByokRecord {
  id: string;
  workspaceId: string;
  keyHash: string | null;
  provider: string;
  name: string | null;
  secret: string;
  last4: string;
  /** True: never fall back to the operator's credentials for this provider (the default). */
  byokOnly: boolean;
  disabled: boolean;
  allowedModels: string[] | null;
  createdAt: number;
  updatedAt: number;
}

export type ByokPatch = Partial<Pick<ByokRecord, "name" | "secret" | "last4" | "byokOnly" | "disabled" | "allowedModels">>;

export interface ByokRepo {
  create(record: Omit<ByokRecord, "createdAt" | "updatedAt">): Promise<ByokRecord>;
  get(id: string, workspaceId: string): Promise<ByokRecord | undefined>;
  list(workspaceId: string, opts: { provider?: string; offset: number; limit: number }): Promise<{ data: ByokRecord[]; total: number }>;
  /** Every credential of a workspace (its keys' included), for the requests of that workspace. */
  all(workspaceId: string): Promise<ByokRecord[]>;
  update(id: string, workspaceId: string, patch: ByokPatch): Promise<ByokRecord | undefined>;
  delete(id: string, workspaceId: string): Promise<boolean>;
}
