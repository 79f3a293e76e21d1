/** Generation records and the generation repository contract (implemented in ../repos/generations.ts). */

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

/** The billed generations: batched inserts from the usage ledger, single reads by id. */
export interface GenerationRepo {
  /** Stores the records not stored yet (ids already present are skipped). */
  insertMany(records: readonly GenerationRecord[]): Promise<void>;
  /**
   * The ledger's write: stores the records and adds each newly stored record's cost to its key's usage, in one
   * transaction. Idempotent: a record stored before (a flush retried after a write whose outcome was unknown, e.g.
   * the connection dropped during COMMIT) is neither stored nor charged again.
   */
  bill(records: readonly GenerationRecord[]): Promise<void>;
  get(id: string, workspaceId: string): Promise<GenerationRecord | undefined>;
  /** USD a key was charged for generations created at or after `since` (Unix ms): seeds credit windows. */
  costSince(keyHash: string, since: number): Promise<number>;
}
