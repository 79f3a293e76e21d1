/**
 * Replayed server-tool blocks of an assistant message → canonical parts: each `server_tool_use` and the result block
 * naming it (`tool_use_id`) become one server-tool part, the inverse of ./server-tool-blocks.ts. What the result block
 * shows is taken back as the tool's result (or its error), so the upstream sees the call and result the model saw.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import { isPlainObject } from "../shared/server-tool-fields.ts";
import { replayedServerToolPart } from "../shared/server-tool-part.ts";
import type { ServerToolResultBlock, ServerToolUseBlock } from "./schema-blocks.ts";

type Outcome = { result?: unknown; error?: string };

/** An Anthropic error object (`{type: …_error, error_code}`) → its code. */
function errorCodeOf(content: unknown): string | undefined {
  return isPlainObject(content) && typeof content.error_code === "string" ? content.error_code : undefined;
}

/** `web_search_result` entries → the search tool's `{results: [{url, title, page_age?}]}`. */
function webSearchOutcome(content: unknown): Outcome {
  const error = errorCodeOf(content);
  if (error !== undefined) return { error };
  const entries = Array.isArray(content) ? content.filter(isPlainObject) : [];
  const results = entries.map((entry) => {
    const out: Record<string, unknown> = { url: entry.url, title: entry.title };
    if (typeof entry.page_age === "string") out.page_age = entry.page_age;
    return out;
  });
  return { result: { results } };
}

/** A `web_fetch_result` document → the fetch tool's `{url, title, content, retrieved_at}`. */
function webFetchOutcome(content: unknown): Outcome {
  const error = errorCodeOf(content);
  if (error !== undefined) return { error };
  if (!isPlainObject(content)) return content === undefined ? {} : { result: content };
  const document = isPlainObject(content.content) ? content.content : {};
  const source = isPlainObject(document.source) ? document.source : {};
  const result: Record<string, unknown> = { url: content.url };
  if (typeof document.title === "string") result.title = document.title;
  if (source.data !== undefined) result.content = source.data;
  if (content.retrieved_at !== undefined && content.retrieved_at !== null) result.retrieved_at = content.retrieved_at;
  return { result };
}

/** Any other kind: `{error}` alone is a failure; anything else is the result as shown. */
function genericOutcome(content: unknown): Outcome {
  if (isPlainObject(content) && typeof content.error === "string" && Object.keys(content).length === 1) return { error: content.error };
  return content === undefined || content === null ? {} : { result: content };
}

function outcomeOf(block: ServerToolResultBlock): Outcome {
  switch (block.type) {
    case "web_search_tool_result":
      return webSearchOutcome(block.content);
    case "web_fetch_tool_result":
      return webFetchOutcome(block.content);
    default:
      return genericOutcome(block.content);
  }
}

/**
 * One call and, when the message has it, its result block. Without a result the call never finished (`incomplete`);
 * with one it completed, or failed when the block is an error.
 */
export function serverToolPartOf(use: ServerToolUseBlock, result: ServerToolResultBlock | undefined): ServerToolPart {
  // Arguments are re-serialised from `input`: Messages carries them as an object, never as the model's text.
  const args = JSON.stringify(isPlainObject(use.input) ? use.input : {});
  if (result === undefined) return replayedServerToolPart({ id: use.id, name: use.name, arguments: args, status: "incomplete" });
  const outcome = outcomeOf(result);
  return replayedServerToolPart({ id: use.id, name: use.name, arguments: args, result: outcome.result, error: outcome.error });
}
