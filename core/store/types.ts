/** Storage contracts (ARCHITECTURE §5): repositories own all SQL; the rest of the code sees these shapes only. */

export interface Workspace {
  id: string;
  name: string;
  createdAt: number;
}

export type LimitReset = "daily" | "weekly" | "monthly";

/** An API key row. The secret itself is never stored: `hash` is its SHA-256 (hex). */
export interface ApiKeyRecord {
  hash: string;
  workspaceId: string;
  name: string;
  /** A non-secret hint shown in listings, e.g. `sk-gw-v1-abc...xyz`. */
  label: string;
  isManagement: boolean;
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
}

export interface NewApiKey {
  hash: string;
  workspaceId: string;
  name: string;
  label: string;
  isManagement: boolean;
  limit: number | null;
  limitReset: LimitReset | null;
  expiresAt: number | null;
}

export interface KeyRepo {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Keys of one workspace, oldest first; `offset`/`limit` paginate; deleted keys never appear. */
  list(workspaceId: string, opts: { offset: number; limit: number; includeDisabled: boolean }): Promise<ApiKeyRecord[]>;
  update(
    hash: string,
    patch: Partial<Pick<ApiKeyRecord, "name" | "disabled" | "limit" | "limitReset" | "expiresAt">>,
  ): Promise<ApiKeyRecord | undefined>;
  /** Removes the key; true when it existed. */
  delete(hash: string): Promise<boolean>;
  count(): Promise<number>;
  /** Adds spent USD to several keys in one transaction (the usage ledger flushes through this). */
  addUsage(entries: ReadonlyArray<{ hash: string; amount: number }>): Promise<void>;
}

export interface WorkspaceRepo {
  /** The workspace created at first start; created if missing. */
  ensureDefault(): Promise<Workspace>;
  get(id: string): Promise<Workspace | undefined>;
  /** A new workspace with a random UUID. */
  create(name: string): Promise<Workspace>;
}

/** One inference request as billed: written off the hot path, read by `GET /generation`. */
export interface GenerationRecord {
  id: string;
  workspaceId: string;
  keyHash: string;
  format: string;
  model: string;
  providerId: string | null;
  upstreamModel: string | null;
  streamed: boolean;
  status: number;
  finishReason: string | null;
  errorType: string | null;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** USD charged. */
  cost: number;
  latencyMs: number;
  /** Time to first token for streams, ms; null otherwise. */
  firstTokenMs: number | null;
  /** Unix ms. */
  createdAt: number;
}

export interface GenerationRepo {
  insertMany(records: readonly GenerationRecord[]): Promise<void>;
  get(id: string, workspaceId: string): Promise<GenerationRecord | undefined>;
}

/** Every repository, as injected in `deps.store`. */
export interface Store {
  workspaces: WorkspaceRepo;
  keys: KeyRepo;
  generations: GenerationRepo;
  /** `sqlite` or `postgres`: some callers (tests, workers) need to know. */
  readonly dialect: "sqlite" | "postgres";
  close(): Promise<void>;
}
