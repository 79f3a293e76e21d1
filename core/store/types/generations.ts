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
  insertMany(records: readonly GenerationRecord[]): Promise<void>;
  get(id: string, workspaceId: string): Promise<GenerationRecord | undefined>;
  /** USD a key was charged for generations created at or after `since` (Unix ms): seeds credit windows. */
  costSince(keyHash: string, since: number): Promise<number>;
}
