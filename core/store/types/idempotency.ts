/** Finished results of requests sent with an `Idempotency-Key` (README "Idempotent requests"). */

/** One stored reply, replayed to a retry with the same key and body. */
export interface IdempotentReply {
  /** Digest of the API key's hash, the route and the client's key: a key never reaches another API key's entry. */
  id: string;
  /** Digest of the first request's raw body: a retry with another body is refused (409). */
  bodyDigest: string;
  status: number;
  /** The reply headers a retry needs (content type, generation id). */
  headers: Record<string, string>;
  /** The JSON body, or the whole event stream as it was sent. */
  body: string;
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyRepo {
  /** The reply stored under `id`, unless it expired by `now`. */
  get(id: string, now: number): Promise<IdempotentReply | undefined>;
  /** Stores a reply (replacing an expired one under the same id). */
  put(reply: IdempotentReply): Promise<void>;
  /** Deletes replies expired by `now`; returns how many. */
  sweep(now: number): Promise<number>;
}
