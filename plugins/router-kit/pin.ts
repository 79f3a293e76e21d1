/**
 * `pin_model` (auto-router): a conversation keeps the model that answered its last assistant turn. The wire formats
 * do not carry which model wrote an assistant message, so the router remembers it itself: after it chose a model,
 * the reply's text (hashed) is stored in the kv with the model (24 h); a later request whose last assistant message
 * has that text finds it. Shared by every gateway process through the kv; best effort (a kv failure pins nothing).
 */
import { createHash } from "node:crypto";
import type { EventStream, Message, PluginContext } from "../../core/sdk/index.ts";

const TTL_MS = 24 * 3_600_000;

function keyOf(text: string): string {
  return `router:pin:${createHash("sha256").update(text.trim()).digest("hex")}`;
}

/** The text of the last assistant message, or undefined when the conversation has none yet. */
function lastAssistantText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    return text.trim() === "" ? undefined : text;
  }
  return undefined;
}

/** The model that wrote the conversation's last assistant turn, when a router of this gateway chose it. */
export async function pinnedModel(ctx: PluginContext): Promise<string | undefined> {
  const text = lastAssistantText(ctx.request.messages);
  if (text === undefined) return undefined;
  try {
    return (await ctx.helpers.kv.get(keyOf(text))) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Remembers that `model` wrote `text`. */
export function rememberPin(ctx: PluginContext, text: string, model: string): void {
  if (text.trim() === "") return;
  ctx.helpers.kv.set(keyOf(text), model, TTL_MS).catch(() => undefined);
}

/** The stream unchanged, remembering its text for the model that served it (its `start`) when it ends. */
export async function* rememberingStream(ctx: PluginContext, events: EventStream, chosen: string): EventStream {
  let text = "";
  let model = chosen;
  for await (const event of events) {
    if (event.type === "start") model = event.model;
    else if (event.type === "text-delta") text += event.delta;
    yield event;
  }
  rememberPin(ctx, text, model);
}
