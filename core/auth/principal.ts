/** Who is calling: the authenticated key and its workspace. */
import type { ApiKeyRecord } from "../store/types/keys.ts";

export interface Principal {
  keyHash: string;
  name: string;
  workspaceId: string;
  isManagement: boolean;
  /** The operator's management key (every workspace), as against a workspace's own (README "Workspaces"). */
  isOperator: boolean;
  /** The stored record (undefined for the env admin key, which lives only in configuration). */
  record: ApiKeyRecord | undefined;
}
