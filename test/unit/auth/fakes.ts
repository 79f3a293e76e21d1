/** Fakes for auth tests: an in-memory key repository that counts lookups and can hold them. */
import type { ApiKeyRecord, KeyRepo } from "../../../core/store/types/keys.ts";

export function keyRecord(hash: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    hash,
    workspaceId: "ws-1",
    name: "test key",
    label: "sk-gw-v1-abc...xyz",
    isManagement: false,
    disabled: false,
    limit: null,
    limitReset: null,
    usage: 0,
    createdAt: 0,
    updatedAt: 0,
    expiresAt: null,
    ...overrides,
  };
}

export interface FakeKeyRepo extends KeyRepo {
  rows: Map<string, ApiKeyRecord>;
  lookups: string[];
  /** When set, lookups read the row, then wait for this before returning it (a slow database). */
  hold: Promise<void> | undefined;
}

export function fakeKeyRepo(records: ApiKeyRecord[] = []): FakeKeyRepo {
  const rows = new Map(records.map((r) => [r.hash, r]));
  const repo: FakeKeyRepo = {
    rows,
    lookups: [],
    hold: undefined,
    async findByHash(hash) {
      repo.lookups.push(hash);
      const row = rows.get(hash);
      const snapshot = row && { ...row };
      await repo.hold;
      return snapshot;
    },
    create: () => Promise.reject(new Error("unused")),
    list: () => Promise.reject(new Error("unused")),
    update: () => Promise.reject(new Error("unused")),
    delete: () => Promise.reject(new Error("unused")),
    count: async () => rows.size,
    countLive: () => Promise.reject(new Error("unused")),
    disableWorkspace: () => Promise.reject(new Error("unused")),
    addUsage: () => Promise.reject(new Error("unused")),
  };
  return repo;
}
