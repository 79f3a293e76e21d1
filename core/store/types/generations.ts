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
  /**
   * JSON text of what the admin page shows about one generation: `{attempts, pipeline, warnings}` (accounting.ts
   * writes it, capped in size). Absent or null for records written before it existed.
   */
  details?: string | null;
  /**
   * Guardrails whose budget this generation counts against: `bill` writes one `guardrail_spend` row per
   * id with the record, so a budget window is re-seeded from the store like a key's. Not a column of its own.
   */
  guardrailBudgets?: readonly string[];
  /** A workspace's (or key's) own provider key paid the upstream (README "Bring your own keys"); absent = false. */
  isByok?: boolean;
  /** What the provider charges the BYOK key for it, at the endpoint's prices (not billed by the gateway). */
  byokCost?: number;
}

/** Filters of the generation log (`GET /generations`), newest first. */
export interface GenerationQuery {
  /** Only generations older than this one (the previous page's last): created_at, then id, descending. */
  before?: { createdAt: number; id: string };
  limit: number;
  model?: string;
  providerId?: string;
  keyHash?: string;
  /** `success`: status 200; `error`: any other. */
  outcome?: "success" | "error";
}

/** One day's usage of one group (a key, a model or a provider), from `usageByDay`. */
export interface DailyUsage {
  /** Days since the Unix epoch (UTC). */
  day: number;
  group: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
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
  /** USD BYOK credentials paid (list price) for the key's generations since `since` (README "Bring your own keys"). */
  byokCostSince(keyHash: string, since: number): Promise<number>;
  /** A page of the workspace's generation log, newest first. */
  list(workspaceId: string, query: GenerationQuery): Promise<GenerationRecord[]>;
  /** Usage summed per UTC day and group over `[from, to)` (Unix ms). */
  usageByDay(workspaceId: string, range: { from: number; to: number; groupBy: "key" | "model" | "provider" }): Promise<DailyUsage[]>;
}
