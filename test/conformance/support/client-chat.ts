/** Chat-completions client driver: request body, `chat.completion` result and `chat.completion.chunk` stream. */
import { blankSeen, frameJson, type Conversation, type FormatDriver, type Frame, type Seen, type SeenFinish, type SeenUsage } from "./client.ts";

type Json = Record<string, unknown>;

const FINISH: Record<string, SeenFinish> = { stop: "stop", length: "length", tool_calls: "tool_calls", content_filter: "refusal", error: "error" };

function body(conv: Conversation): Json {
  const messages: unknown[] = [];
  if (conv.system !== undefined) messages.push({ role: "system", content: conv.system });
  for (const turn of conv.turns) {
    switch (turn.role) {
      case "user":
        messages.push({
          role: "user",
          content: turn.image === undefined ? turn.text : [{ type: "text", text: turn.text }, { type: "image_url", image_url: { url: turn.image } }],
        });
        break;
      case "assistant":
        messages.push({ role: "assistant", content: turn.text });
        break;
      case "replay":
        messages.push(...turn.items);
        break;
      case "tool":
        messages.push({ role: "tool", tool_call_id: turn.callId, content: turn.content });
        break;
    }
  }
  const out: Json = { model: conv.model, messages };
  if (conv.tools) out.tools = conv.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
  if (conv.maxTokens !== undefined) out.max_completion_tokens = conv.maxTokens;
  if (conv.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return { ...out, ...conv.extra };
}

function usageOf(usage: Json | undefined | null): SeenUsage | undefined {
  if (!usage) return undefined;
  const prompt = usage.prompt_tokens_details as Json | undefined;
  const completion = usage.completion_tokens_details as Json | undefined;
  return {
    input: usage.prompt_tokens as number,
    cacheRead: (prompt?.cached_tokens as number) ?? 0,
    cacheWrite: (prompt?.cache_write_tokens as number) ?? 0,
    output: usage.completion_tokens as number,
    reasoning: (completion?.reasoning_tokens as number) ?? 0,
    cost: usage.cost as number | undefined,
  };
}

function errorOf(error: Json): NonNullable<Seen["error"]> {
  const metadata = error.metadata as Json | undefined;
  return { type: metadata?.error_type as string | undefined, status: error.code as number | undefined, message: error.message as string | undefined, raw: error };
}

function fromJson(result: Json): Seen {
  const seen = blankSeen();
  const choice = (result.choices as Json[])[0] as Json;
  const message = choice.message as Json;
  seen.text = (message.content as string | null) ?? "";
  seen.reasoning = (message.reasoning as string | null) ?? "";
  seen.toolCalls = ((message.tool_calls as Json[] | undefined) ?? []).map((c) => {
    const fn = c.function as Json;
    return { id: c.id as string, name: fn.name as string, arguments: fn.arguments as string };
  });
  seen.nativeFinish = choice.finish_reason;
  seen.finish = FINISH[choice.finish_reason as string] ?? "unknown";
  seen.model = result.model as string;
  seen.provider = result.provider as string;
  seen.usage = usageOf(result.usage as Json);
  if (result.error) seen.error = errorOf(result.error as Json);
  seen.metadata = result.service_metadata as Json | undefined;
  // What an OpenAI-SDK user does: push the assistant message back as it came.
  seen.replay = [message];
  seen.body = result;
  return seen;
}

/**
 * Folds chunks the way OpenRouter-aware clients do: content and reasoning concatenated, tool calls by `index`,
 * `reasoning_details` merged by their `index` (text and signature of one item arrive in different chunks).
 */
function fromFrames(frames: Frame[]): Seen {
  const seen = blankSeen();
  seen.frames = frames;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  const details = new Map<number, Json>();
  for (const frame of frames) {
    if (frame.data === "[DONE]") {
      seen.ended = true;
      continue;
    }
    const chunk = frameJson(frame);
    if (!chunk) continue;
    seen.model = chunk.model as string;
    seen.provider = chunk.provider as string;
    if (chunk.usage) seen.usage = usageOf(chunk.usage as Json);
    if (chunk.service_metadata) seen.metadata = chunk.service_metadata as Json;
    if (chunk.error) seen.error = errorOf(chunk.error as Json);
    const choice = (chunk.choices as Json[] | undefined)?.[0];
    if (!choice) continue;
    const delta = (choice.delta as Json | undefined) ?? {};
    if (typeof delta.content === "string") seen.text += delta.content;
    if (typeof delta.reasoning === "string") seen.reasoning += delta.reasoning;
    for (const detail of (delta.reasoning_details as Json[] | undefined) ?? []) {
      const index = detail.index as number;
      const merged = details.get(index) ?? {};
      for (const [key, value] of Object.entries(detail)) {
        if ((key === "text" || key === "summary") && typeof value === "string") merged[key] = ((merged[key] as string | undefined) ?? "") + value;
        else if (value !== null && value !== undefined && value !== "") merged[key] = value;
      }
      details.set(index, merged);
    }
    for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
      const index = call.index as number;
      const fn = (call.function as Json | undefined) ?? {};
      const entry = calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (typeof call.id === "string") entry.id = call.id;
      if (typeof fn.name === "string" && fn.name !== "") entry.name = fn.name;
      if (typeof fn.arguments === "string") entry.arguments += fn.arguments;
      calls.set(index, entry);
    }
    if (choice.finish_reason) {
      seen.nativeFinish = choice.finish_reason;
      seen.finish = FINISH[choice.finish_reason as string] ?? "unknown";
    }
  }
  seen.deltaText = seen.text;
  seen.toolCalls = [...calls.values()];
  seen.deltaArgs = seen.toolCalls.map((c) => c.arguments);
  const message: Json = { role: "assistant", content: seen.text === "" ? null : seen.text };
  if (seen.toolCalls.length > 0) message.tool_calls = seen.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
  if (seen.reasoning !== "") message.reasoning = seen.reasoning;
  if (details.size > 0) message.reasoning_details = [...details.entries()].sort(([a], [b]) => a - b).map(([, d]) => d);
  seen.replay = [message];
  return seen;
}

export const chatDriver: FormatDriver = { id: "chat", path: "/chat/completions", body, fromJson, fromFrames };
