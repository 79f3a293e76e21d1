/**
 * One cached answer as the kv holds it, and the answer a hit gives (README "Response cache"). What is stored is the
 * canonical response (the upstream's raw usage object left out), what it cost at list price and when and by which
 * generation it was made; the format it is replayed in is the hit's own. A hit is a generation of its own: its id,
 * its creation time, zero usage (nothing was generated), and a cost the accounting stage sets.
 */
import type { CanonicalResponse } from "../model/response.ts";
import { emptyUsage } from "../model/usage.ts";

const VERSION = 1;

export interface CacheEntry {
  v: typeof VERSION;
  response: CanonicalResponse;
  /** USD the answer cost when it was made, at list price (what `cache.read_price_factor` multiplies). */
  cost: number;
  /** Unix ms. */
  createdAt: number;
  ttlSeconds: number;
  /** The generation that made the answer (`X-Service-Cache-Source-Id`). */
  sourceId: string;
}

export function encodeEntry(response: CanonicalResponse, cost: number, createdAt: number, ttlSeconds: number): string {
  const { raw: _raw, ...usage } = response.usage;
  const { cost: _cost, ...kept } = response;
  const entry: CacheEntry = { v: VERSION, response: { ...kept, usage }, cost, createdAt, ttlSeconds, sourceId: response.id };
  return JSON.stringify(entry);
}

/** The entry in `text`, or undefined when it is not one this version reads (then the request is a miss). */
export function decodeEntry(text: string): CacheEntry | undefined {
  try {
    const entry = JSON.parse(text) as Partial<CacheEntry>;
    if (entry.v !== VERSION || typeof entry.response !== "object" || entry.response === null || !Array.isArray(entry.response.parts)) return undefined;
    if (typeof entry.cost !== "number" || typeof entry.createdAt !== "number" || typeof entry.sourceId !== "string") return undefined;
    return entry as CacheEntry;
  } catch {
    return undefined;
  }
}

/** The answer a hit gives: the stored one as a new generation with nothing generated. */
export function answerOf(entry: CacheEntry, generationId: string, now: number): CanonicalResponse {
  const created = Math.floor(now / 1000);
  const response: CanonicalResponse = { ...entry.response, id: generationId, created, usage: emptyUsage() };
  if (response.completed !== undefined) response.completed = created;
  return response;
}
