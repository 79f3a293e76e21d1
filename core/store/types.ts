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
  /** The key's own rate limit; null or absent = the config default applies (issue 5). */
  rateLimit?: KeyRateLimit | null;
}

/** A per-key rate limit: requests and/or tokens per interval (null = not limited). */
export interface KeyRateLimit {
  requests: number | null;
  tokens: number | null;
  intervalSeconds: number;
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
  rateLimit?: KeyRateLimit | null;
}

export interface KeyRepo {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Keys of one workspace, oldest first; `offset`/`limit` paginate; deleted keys never appear. */
  list(workspaceId: string, opts: { offset: number; limit: number; includeDisabled: boolean }): Promise<ApiKeyRecord[]>;
  update(
    hash: string,
    patch: Partial<Pick<ApiKeyRecord, "name" | "disabled" | "limit" | "limitReset" | "expiresAt" | "rateLimit">>,
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
  /** USD a key was charged for generations created at or after `since` (Unix ms): seeds credit windows. */
  costSince(keyHash: string, since: number): Promise<number>;
}

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

/** Presets and their versions (spec "Preset", endpoints 3–4; reference b6). */
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

/** Batch statuses (spec "Batch", "States and transitions"). */
export type BatchStatus = "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "cancelling" | "cancelled";

/** A batch item's own lifecycle: claimed under a lease while running; `completed`/`failed` are final. */
export type BatchItemStatus = "pending" | "running" | "completed" | "failed";

/** A batch-level error: `code` only for failed batches (spec "Batch" `error`). */
export interface BatchError {
  message: string;
  code?: number;
}

/** One batch row (spec "Batch"); aggregates are filled when it reaches a terminal status. */
export interface BatchRecord {
  id: string;
  workspaceId: string;
  keyHash: string;
  endpoint: string;
  model: string | null;
  status: BatchStatus;
  completionWindow: string;
  /** Unix ms, like every timestamp below. */
  createdAt: number;
  inProgressAt: number | null;
  finalizingAt: number | null;
  finalizedAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  expiresAt: number;
  error: BatchError | null;
  requestTotal: number;
  requestCompleted: number | null;
  requestFailed: number | null;
  usage: Record<string, unknown> | null;
  cost: number | null;
  purgedAt: number | null;
}

/** A submitted batch with its validated requests. */
export interface NewBatch {
  id: string;
  workspaceId: string;
  keyHash: string;
  endpoint: string;
  model: string | null;
  completionWindow: string;
  createdAt: number;
  expiresAt: number;
  items: ReadonlyArray<{ id: string; customId: string; body: Record<string, unknown> }>;
}

/** One request of a batch. */
export interface BatchItemRecord {
  id: string;
  batchId: string;
  idx: number;
  customId: string;
  body: Record<string, unknown>;
  status: BatchItemStatus;
  claimedBy: string | null;
  claimedUntil: number | null;
  attempts: number;
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  finishedAt: number | null;
}

/** Fields a status transition may stamp. */
export type BatchPatch = Partial<
  Pick<BatchRecord, "inProgressAt" | "finalizingAt" | "finalizedAt" | "cancellingAt" | "cancelledAt" | "error" | "requestCompleted" | "requestFailed" | "usage" | "cost" | "purgedAt">
>;

/** How an item ended. */
export type ItemEnding =
  | { status: "completed"; result: Record<string, unknown> }
  | { status: "failed"; error: Record<string, unknown> };

/** Items that a transition fails in the same transaction (expiry, cancellation, a batch that cannot run). */
export interface FailItems {
  statuses: ReadonlyArray<"pending" | "running">;
  error: Record<string, unknown>;
  now: number;
}

/** Batches and their items (spec "Batch", endpoint 5; reference b7). Claims are atomic across processes. */
export interface BatchRepo {
  create(batch: NewBatch): Promise<BatchRecord>;
  get(id: string): Promise<BatchRecord | undefined>;
  /** Newest first; `after` is the cursor batch (exclusive). */
  list(workspaceId: string, page: { after?: { createdAt: number; id: string }; limit: number }): Promise<BatchRecord[]>;
  /** Removes the batch and its items; true when it existed. */
  delete(id: string): Promise<boolean>;
  /** Batches in any of these statuses, oldest first. */
  byStatus(statuses: readonly BatchStatus[], limit: number): Promise<BatchRecord[]>;
  /** Non-terminal batches past their completion window. */
  dueForExpiry(now: number, limit: number): Promise<BatchRecord[]>;
  /** Batches created at or before `cutoff` whose items were not purged yet. */
  dueForPurge(cutoff: number, limit: number): Promise<BatchRecord[]>;
  /**
   * Moves the batch from one of `from` to `to` and stamps `patch`; with `failItems`, also fails its unfinished
   * items in the same transaction. True when this call made the move (a conditional update: exactly one caller wins).
   */
  transition(id: string, from: readonly BatchStatus[], to: BatchStatus, patch: BatchPatch, failItems?: FailItems): Promise<boolean>;
  /** Item counts by status. */
  counts(batchId: string): Promise<Record<BatchItemStatus, number>>;
  /** Running items whose lease has not run out (a crashed worker's items are not counted). */
  activeRunning(batchId: string, now: number): Promise<number>;
  /** Items in submission order, without bodies (results and errors only). */
  results(batchId: string): Promise<BatchItemRecord[]>;
  /** Atomically claims up to `limit` pending items (or running ones whose lease expired) for `workerId`. */
  claim(batchId: string, workerId: string, limit: number, now: number, leaseMs: number): Promise<BatchItemRecord[]>;
  /** Extends the leases this worker holds on these items. */
  renew(workerId: string, itemIds: readonly string[], until: number): Promise<void>;
  /** Ends an item, only if `workerId` still holds it running: exactly one ending per item. True when written. */
  finish(itemId: string, workerId: string, ending: ItemEnding, now: number): Promise<boolean>;
  /** Gives a claimed item back (worker stopping): pending again, claimable at once. */
  release(itemId: string, workerId: string): Promise<void>;
  /** Deletes the items of a batch (retention) and stamps `purged_at`. */
  purge(batchId: string, now: number): Promise<void>;
}

/** Every repository, as injected in `deps.store`. */
export interface Store {
  workspaces: WorkspaceRepo;
  keys: KeyRepo;
  generations: GenerationRepo;
  presets: PresetRepo;
  batches: BatchRepo;
  /** `sqlite` or `postgres`: some callers (tests, workers) need to know. */
  readonly dialect: "sqlite" | "postgres";
  close(): Promise<void>;
}
