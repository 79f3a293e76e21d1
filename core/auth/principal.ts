/** Who is calling: the authenticated key and its workspace. */
import type { ApiKeyRecord } from "../store/types/keys.ts";

export interface Principal {
  keyHash: string;
  name: string;
  workspaceId: string;
  isManagement: boolean;
  /** The stored record (undefined for the env admin key, which lives only in configuration). */
  record: ApiKeyRecord | undefined;
}
