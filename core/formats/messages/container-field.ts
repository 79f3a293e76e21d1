/**
 * The Messages result's `container` (spec "Messages result"): the container the request's server
 * tools ran in, `{id, expires_at, skills}`, or null when none was used. `expires_at` is an ISO 8601 string as
 * Anthropic's API gives it (its SDKs read it as a date-time); `skills` is null: the gateway attaches none.
 */
import type { EncodeContext } from "../format.ts";

export function containerField(ctx: EncodeContext): { id: string; expires_at: string; skills: null } | null {
  const container = ctx.trailer?.container;
  if (container === undefined) return null;
  return { id: container.id, expires_at: new Date(container.expiresAt * 1000).toISOString(), skills: null };
}
