/** Shared fixtures of the batch unit tests. */
import type { NewBatch } from "../../../core/store/types/batches.ts";

let seq = 0;
/** A new batch of `n` items (ids unique across the run, since Postgres cases share one schema per backend). */
export function newBatch(n: number, patch: Partial<NewBatch> = {}): NewBatch {
  const id = `batch_t${++seq}_${Date.now()}`;
  return {
    id,
    workspaceId: "ws-1",
    keyHash: "key-1",
    endpoint: "/chat/completions",
    model: "m",
    completionWindow: "24h",
    createdAt: 1_000_000 + seq,
    expiresAt: 1_000_000 + seq + 86_400_000,
    items: Array.from({ length: n }, (_, i) => ({ id: `${id}_r${i}`, customId: `c${i}`, body: { i } })),
    ...patch,
  };
}
