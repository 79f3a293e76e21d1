/**
 * Sticky sessions (spec `session_id`): a session is pinned, per key and model, to the provider that first served
 * it, so that provider's prompt cache stays warm. The pin lives in the kv with a TTL refreshed on use, so every
 * gateway process honours it; it moves only when the pinned provider could not serve (unhealthy or failing).
 */
import type { Kv } from "../kv/kv.ts";

/** The kv key of one session's pin; scoped by the calling key so sessions of different keys never collide. */
export function stickyKey(keyHash: string, modelId: string, sessionId: string): string {
  return `gw:sticky:${keyHash}:${modelId}:${sessionId}`;
}

/** The pinned provider id, or undefined (also when the kv is unreachable: stickiness is an optimisation). */
export async function pinnedProvider(kv: Kv, key: string): Promise<string | undefined> {
  try {
    return (await kv.get(key)) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records who served the session: refreshes the TTL when it was the pinned provider, pins a new session (first
 * writer wins, so two processes racing on a new session agree), and moves a pin whose provider could not serve.
 */
export function pinProvider(kv: Kv, key: string, served: string, pinned: string | undefined, ttlMs: number): Promise<unknown> {
  if (pinned === undefined) return kv.setIfAbsent(key, served, ttlMs);
  return kv.set(key, served, ttlMs);
}
