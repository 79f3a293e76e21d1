/** Test helpers for the chat format: a context, SSE frame parsing, and an OpenAI-client-like chunk reassembler. */
import { expect } from "bun:test";
import type { EncodeContext } from "../../../../core/formats/format.ts";
import type { ChatChunk } from "../../../../core/formats/chat/chunk.ts";
import { decodeChat } from "../../../../core/formats/chat/decode.ts";
import type { ChatCompletion, ChatMessageOut, ChatToolCallOut } from "../../../../core/formats/chat/encode.ts";
import type { ReasoningDetailOut } from "../../../../core/formats/chat/reasoning-details.ts";
import type { ChatServerToolCallOut } from "../../../../core/formats/chat/server-tool-calls.ts";
import type { ChatUsage } from "../../../../core/formats/chat/usage.ts";

/** An encode context for a streamed request, optionally with `include_usage` and opted-in routing metadata. */
export function chatContext(options: { includeUsage?: boolean; metadata?: Record<string, unknown> } = {}): EncodeContext {
  const body: Record<string, unknown> = { model: "anthropic/claude-sonnet-4", messages: [{ role: "user", content: "hi" }], stream: true };
  if (options.includeUsage !== undefined) body.stream_options = { include_usage: options.includeUsage };
  const ctx: EncodeContext = { request: decodeChat(body, new Headers()), generationId: "gen-123" };
  const metadata = options.metadata;
  if (metadata) ctx.trailer = { serviceMetadata: metadata };
  return ctx;
}

/** Replays a fixed event list as an async stream; drains an async iterable into an array. */
export { drain, replay } from "../../../support/iterables.ts";

/** Checks the SSE framing (every frame `data: …\n\n`, `[DONE]` exactly once and last) and parses the chunks. */
export function parseFrames(frames: readonly string[]): ChatChunk[] {
  expect(frames.at(-1)).toBe("data: [DONE]\n\n");
  expect(frames.filter((frame) => frame.includes("[DONE]"))).toHaveLength(1);
  return frames.slice(0, -1).map((frame) => {
    expect(frame.startsWith("data: ")).toBe(true);
    expect(frame.endsWith("\n\n")).toBe(true);
    return JSON.parse(frame.slice("data: ".length)) as ChatChunk;
  });
}

function mergeDetail(into: ReasoningDetailOut | undefined, delta: ReasoningDetailOut): ReasoningDetailOut {
  if (!into) return { ...delta };
  if (into.type === "reasoning.text" && delta.type === "reasoning.text") {
    into.text += delta.text;
    if (delta.signature !== undefined) into.signature = delta.signature;
  } else if (into.type === "reasoning.summary" && delta.type === "reasoning.summary") into.summary += delta.summary;
  else if (into.type === "reasoning.encrypted" && delta.type === "reasoning.encrypted") into.data += delta.data;
  return into;
}

/** A completion rebuilt from chunks; `usage` only exists when the stream sent a usage chunk. */
export type Reassembled = Omit<ChatCompletion, "usage"> & { usage?: ChatUsage };

/** Folds chunks the way a client does: concatenate strings, merge tool calls, server tool calls and reasoning details by index. */
export function reassemble(chunks: readonly ChatChunk[]): Reassembled {
  const last = chunks.at(-1);
  if (!last) throw new Error("no chunks");
  let content: string | null = null;
  let refusal: string | null = null;
  let reasoning: string | null = null;
  const details = new Map<number, ReasoningDetailOut>();
  const calls = new Map<number, ChatToolCallOut>();
  const serverCalls = new Map<number, ChatServerToolCallOut>();
  const annotations: unknown[] = [];
  const logprobs: unknown[] = [];
  const result: Partial<ChatCompletion> = {};
  let finish: ChatChunk["choices"][number] | undefined;
  for (const chunk of chunks) {
    if (chunk.usage) result.usage = chunk.usage;
    if (chunk.error) result.error = chunk.error;
    if (chunk.service_metadata) result.service_metadata = chunk.service_metadata;
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (delta.content !== undefined) content = (content ?? "") + delta.content;
      if (delta.refusal !== undefined) refusal = (refusal ?? "") + delta.refusal;
      if (delta.reasoning !== undefined) reasoning = (reasoning ?? "") + delta.reasoning;
      for (const detail of delta.reasoning_details ?? []) details.set(detail.index, mergeDetail(details.get(detail.index), detail));
      for (const call of delta.tool_calls ?? []) {
        const known = calls.get(call.index);
        if (known) known.function.arguments += call.function.arguments;
        else calls.set(call.index, { id: call.id ?? "", index: call.index, type: "function", function: { name: call.function.name ?? "", arguments: call.function.arguments } });
      }
      for (const { index, ...fields } of delta.server_tool_calls ?? []) {
        // Later deltas of an index overwrite its keys (the closing one sets the final status and the result).
        serverCalls.set(index, { ...serverCalls.get(index), ...fields } as ChatServerToolCallOut);
      }
      annotations.push(...(delta.annotations ?? []));
      logprobs.push(...(choice.logprobs?.content ?? []));
      if (choice.finish_reason !== null) finish = choice;
    }
  }
  const message: ChatMessageOut = { role: "assistant", content, refusal, reasoning };
  if (details.size > 0) message.reasoning_details = [...details.values()].sort((a, b) => a.index - b.index);
  if (calls.size > 0) message.tool_calls = [...calls.values()].sort((a, b) => a.index - b.index);
  if (serverCalls.size > 0) message.server_tool_calls = [...serverCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  if (annotations.length > 0) message.annotations = annotations;
  const body: Reassembled = {
    id: last.id,
    object: "chat.completion",
    created: last.created,
    model: last.model,
    provider: last.provider,
    service_tier: last.service_tier,
    // A stream carries no fingerprint (the chunk leaves the field out); the body reports null.
    system_fingerprint: last.system_fingerprint ?? null,
    choices: [
      {
        index: 0,
        finish_reason: finish?.finish_reason ?? "stop",
        native_finish_reason: finish?.native_finish_reason ?? null,
        logprobs: logprobs.length > 0 ? { content: logprobs, refusal: null } : null,
        message,
      },
    ],
  };
  if (result.usage) body.usage = result.usage;
  if (result.error) body.error = result.error;
  if (result.service_metadata) body.service_metadata = result.service_metadata;
  return body;
}
