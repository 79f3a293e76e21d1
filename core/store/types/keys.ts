/** API key records and the key repository contract (implemented in ../repos/keys.ts). */

/** How often a key's credit limit starts over (a new credit window; see core/limits/windows.ts). */
export type LimitReset = "daily" | "weekly" | "monthly";

/** An API key row. The secret itself is never stored: `hash` is its SHA-256 (hex). */
export interface ApiKeyRecord {
  hash: string;
  workspaceId: string;
  name: string;
  /** A non-secret hint shown in listings, e.g. `sk-gw-v1-abc...xyz`. */
  label: string;
  isManagement: boolean;
  /** A management key of the operator (every workspace) rather than of its own workspace; absent reads as false. */
  isOperator?: boolean;
  disabled: boolean;
  /** USD, null = unlimited. */
  limit: number | null;
  limitReset: LimitReset | null;
  /** Lifetime USD spent. */
  usage: number;
  /** Unix ms. */
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  /** The key's own rate limit; null or absent = the config default applies. */
  rateLimit?: KeyRateLimit | null;
  /** Reference b9 `include_byok_in_limit`; absent reads as false. Whether BYOK spending counts against the limit. */
  includeByokInLimit?: boolean;
  /** Strict translation mode for this key's requests without an `X-Service-Strict` header; absent = the config's. */
  strict?: boolean;
  /** The key's response-cache setting (README "Response cache"); absent = the workspace's, else off. */
  cache?: { enabled: boolean; ttlSeconds?: number };
}

/** A per-key rate limit: requests and/or tokens per interval (null = not limited). */
export interface KeyRateLimit {
  requests: number | null;
  tokens: number | null;
  intervalSeconds: number;
}

/** What creating an API key needs: its hash and settings (usage and timestamps are the repository's). */
export interface NewApiKey {
  hash: string;
  workspaceId: string;
  name: string;
  label: string;
  isManagement: boolean;
  /** The operator's management key (README "Workspaces"); default false. */
  isOperator?: boolean;
  limit: number | null;
  limitReset: LimitReset | null;
  expiresAt: number | null;
  rateLimit?: KeyRateLimit | null;
  includeByokInLimit?: boolean;
  strict?: boolean;
  cache?: { enabled: boolean; ttlSeconds?: number };
}

/** API keys, looked up by the hash of their secret. */
export interface KeyRepo {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Keys of one workspace, oldest first; `offset`/`limit` paginate; deleted keys never appear. */
  list(workspaceId: string, opts: { offset: number; limit: number; includeDisabled: boolean }): Promise<ApiKeyRecord[]>;
  update(
    hash: string,
    // `strict: null` gives the key back to the config's default.
    patch: Partial<Pick<ApiKeyRecord, "name" | "disabled" | "limit" | "limitReset" | "expiresAt" | "rateLimit" | "includeByokInLimit">> & { strict?: boolean | null; cache?: { enabled: boolean; ttlSeconds?: number } | null },
  ): Promise<ApiKeyRecord | undefined>;
  /** Removes the key; true when it existed. */
  delete(hash: string): Promise<boolean>;
  count(): Promise<number>;
  /** Keys of a workspace that are neither disabled nor expired at `now`. */
  countLive(workspaceId: string, now: number): Promise<number>;
  /** Disables every key of a workspace; the hashes it disabled (so caches can drop them). */
  disableWorkspace(workspaceId: string): Promise<string[]>;
  /** Adds spent USD to several keys in one transaction (the usage ledger flushes through this). */
  addUsage(entries: ReadonlyArray<{ hash: string; amount: number }>): Promise<void>;
}
