/**
 * pareto-router's session stickiness (the peer's "sticky 5 min", "keeps a session on the
 * same model when it can"). A session is the request's `session_id` (or `x-session-id`), else the conversation
 * itself: its system prompt and first user message, which every later turn of it repeats. The model chosen for a
 * session is kept in the kv for 5 minutes after the session's last request (each request renews it), so every
 * gateway process sharing the kv keeps the session on it, and entries expire on their own (bounded by the kv's
 * TTL). "When it can": the kept model is used only while it is still one of the request's ranked candidates (same
 * tier, under `max_price`) and routing can serve it; otherwise the ranking decides again and the new choice is kept.
 * Best effort: a kv failure only means no stickiness.
 */
import { createHash } from "node:crypto";
import type { Message, PluginContext } from "../../core/sdk/index.ts";

export const STICKY_TTL_MS = 5 * 60_000;

/** The kv key of the request's session; undefined when it has neither a session id nor a user message. */
export function sessionKey(ctx: PluginContext): string | undefined {
  const { sessionId, system, messages } = ctx.request;
  let identity: string;
  if (sessionId !== undefined && sessionId !== "") identity = `session\u0000${sessionId}`;
  else {
    const first = firstUserText(messages);
    if (first === undefined) return undefined;
    identity = `conversation\u0000${system.map((part) => part.text).join("\n")}\u0000${first}`;
  }
  // Per workspace: another workspace sending the same session id or conversation never shares (or learns) the choice.
  return `router:pareto:sticky:${createHash("sha256").update(`${ctx.workspace}\u0000${identity}`).digest("hex")}`;
}

export async function stickyModel(ctx: PluginContext, key: string): Promise<string | undefined> {
  try {
    return (await ctx.helpers.kv.get(key)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps (or renews) `model` for the session. */
export async function keepSticky(ctx: PluginContext, key: string, model: string): Promise<void> {
  await ctx.helpers.kv.set(key, model, STICKY_TTL_MS).catch(() => undefined);
}

function firstUserText(messages: readonly Message[]): string | undefined {
  const message = messages.find((m) => m.role === "user");
  if (!message) return undefined;
  return message.parts.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}
