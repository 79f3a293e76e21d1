/**
 * Messages client driver: request body, `message` result, and the named-event stream folded the way
 * `@anthropic-ai/sdk`'s MessageStream accumulates it (but keeping every field the raw events carry).
 */
import { blankSeen, frameJson, type Conversation, type FormatDriver, type Frame, type Seen, type SeenFinish, type SeenUsage } from "./client.ts";

type Json = Record<string, unknown>;

const FINISH: Record<string, SeenFinish> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "refusal",
};

function imageBlock(url: string): Json {
  const match = /^data:([^;]+);base64,(.*)$/s.exec(url);
  return { type: "image", source: match ? { type: "base64", media_type: match[1], data: match[2] } : { type: "url", url } };
}

function body(conv: Conversation): Json {
  const messages: Json[] = [];
  for (const turn of conv.turns) {
    switch (turn.role) {
      case "user":
        messages.push({ role: "user", content: turn.image === undefined ? turn.text : [{ type: "text", text: turn.text }, imageBlock(turn.image)] });
        break;
      case "assistant":
        messages.push({ role: "assistant", content: turn.text });
        break;
      case "replay":
        messages.push(...(turn.items as Json[]));
        break;
      case "tool": {
        // Results of parallel calls share one user turn, as Anthropic requires.
        const block = { type: "tool_result", tool_use_id: turn.callId, content: turn.content };
        const last = messages.at(-1);
        const content = last?.role === "user" && Array.isArray(last.content) ? (last.content as Json[]) : undefined;
        if (content?.every((b) => b.type === "tool_result")) content.push(block);
        else messages.push({ role: "user", content: [block] });
        break;
      }
    }
  }
  const out: Json = { model: conv.model, max_tokens: conv.maxTokens ?? 1024, messages };
  if (conv.system !== undefined) out.system = conv.system;
  if (conv.tools) out.tools = conv.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (conv.stream) out.stream = true;
  return { ...out, ...conv.extra };
}

function usageOf(usage: Json | undefined): SeenUsage | undefined {
  if (!usage) return undefined;
  const read = (usage.cache_read_input_tokens as number) ?? 0;
  const write = (usage.cache_creation_input_tokens as number) ?? 0;
  return {
    // Anthropic's input_tokens excludes cache reads and writes; the neutral view includes them.
    input: (usage.input_tokens as number) + read + write,
    cacheRead: read,
    cacheWrite: write,
    output: usage.output_tokens as number,
    reasoning: ((usage.output_tokens_details as Json | null)?.thinking_tokens as number) ?? 0,
    cost: usage.cost as number | undefined,
  };
}

function fromMessage(message: Json, seen: Seen): Seen {
  for (const block of (message.content as Json[]) ?? []) {
    if (block.type === "text") seen.text += block.text as string;
    else if (block.type === "thinking") seen.reasoning += block.thinking as string;
    else if (block.type === "tool_use") seen.toolCalls.push({ id: block.id as string, name: block.name as string, arguments: JSON.stringify(block.input) });
  }
  seen.model = message.model as string;
  seen.provider = message.provider as string | undefined;
  seen.nativeFinish = message.stop_reason;
  seen.finish = FINISH[message.stop_reason as string] ?? "unknown";
  seen.usage = usageOf(message.usage as Json);
  seen.metadata = message.service_metadata as Json | undefined;
  // What an Anthropic-SDK user does: append `{role: "assistant", content: message.content}`.
  seen.replay = [{ role: "assistant", content: message.content }];
  return seen;
}

function fromJson(result: Json): Seen {
  const seen = fromMessage(result, blankSeen());
  seen.body = result;
  return seen;
}

function fromFrames(frames: Frame[]): Seen {
  let message: Json | undefined;
  let error: Json | undefined;
  let metadata: Json | undefined;
  let stopped = false;
  let deltaText = "";
  const deltaArgs = new Map<number, string>();
  for (const frame of frames) {
    const event = frameJson(frame);
    if (!event) continue;
    const content = (message?.content as Json[] | undefined) ?? [];
    switch (event.type) {
      case "message_start":
        message = structuredClone(event.message as Json);
        break;
      case "content_block_start":
        content.push({ ...(event.content_block as Json) });
        break;
      case "content_block_delta": {
        const block = content[event.index as number] as Json;
        const delta = event.delta as Json;
        if (delta.type === "text_delta") {
          block.text = (block.text as string) + (delta.text as string);
          deltaText += delta.text as string;
        } else if (delta.type === "thinking_delta") block.thinking = (block.thinking as string) + (delta.thinking as string);
        else if (delta.type === "signature_delta") block.signature = delta.signature;
        else if (delta.type === "citations_delta") block.citations = [...((block.citations as unknown[] | null) ?? []), delta.citation];
        else if (delta.type === "input_json_delta") {
          const index = event.index as number;
          deltaArgs.set(index, (deltaArgs.get(index) ?? "") + (delta.partial_json as string));
        }
        break;
      }
      case "content_block_stop": {
        const index = event.index as number;
        const block = content[index] as Json;
        if (block.type === "tool_use" && deltaArgs.has(index)) block.input = JSON.parse(deltaArgs.get(index) as string);
        break;
      }
      case "message_delta": {
        if (!message) break;
        const delta = event.delta as Json;
        message.stop_reason = delta.stop_reason;
        message.stop_sequence = delta.stop_sequence;
        message.stop_details = delta.stop_details;
        message.usage = { ...(message.usage as Json), ...(event.usage as Json) };
        if (event.service_metadata) metadata = event.service_metadata as Json;
        break;
      }
      case "message_stop":
        stopped = true;
        break;
      case "error":
        error = event.error as Json;
        if (event.service_metadata) metadata = event.service_metadata as Json;
        break;
    }
  }
  let seen = blankSeen();
  if (message) seen = fromMessage(message, seen);
  if (error) {
    seen.error = { type: error.error_type as string | undefined, status: undefined, message: error.message as string | undefined, raw: error };
    seen.finish = "error";
  }
  seen.metadata = metadata ?? seen.metadata;
  seen.frames = frames;
  seen.deltaText = deltaText;
  seen.deltaArgs = [...deltaArgs.values()];
  seen.ended = stopped || error !== undefined;
  seen.body = message;
  return seen;
}

export const messagesDriver: FormatDriver = { id: "messages", path: "/messages", body, fromJson, fromFrames };
