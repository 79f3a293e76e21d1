/**
 * A server tool the gateway ran → Messages content blocks (Anthropic's server-tool shapes): the call is
 * a `server_tool_use` block, its result a block of the tool's kind (`web_search_tool_result`, `web_fetch_tool_result`,
 * else `service_<tool>_tool_result`, following the reference's `openrouter_shell_tool_result`). Shared by the result
 * encoder and the stream encoder, so both show the same blocks.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import { isPlainObject, serverToolError, toolShortName } from "../shared/server-tool-fields.ts";
import { PEER_PREFIX } from "../shared/tool-spelling.ts";
import { toolInputOf } from "./result-fields.ts";

type Block = Record<string, unknown>;

/** Anthropic's `web_search_tool_result_error.error_code` values; the web_search tool prefixes its errors with them. */
const SEARCH_ERROR_CODES = ["invalid_tool_input", "unavailable", "max_uses_exceeded", "too_many_requests", "query_too_long", "request_too_large"];

/** Anthropic's web fetch error codes. */
const FETCH_ERROR_CODES = ["invalid_tool_input", "url_too_long", "url_not_allowed", "url_not_accessible", "unsupported_content_type", "too_many_requests", "max_uses_exceeded", "unavailable"];

/** The error code `message` starts with (`query_too_long: …`, or a bare code), else `fallback`. */
function errorCode(message: string, codes: readonly string[], fallback: string): string {
  const head = /^([a-z_]+)(?::|$)/.exec(message)?.[1];
  return head !== undefined && codes.includes(head) ? head : fallback;
}

/**
 * The call block. `input` must be an object: arguments that are not one become `{}` (`valid: false`). `shownAs` is
 * the tool's type as the client declared it (the peer's `openrouter:<tool>`), else ours.
 */
export function serverToolUseBlock(part: ServerToolPart, shownAs = part.name): { block: Block; valid: boolean } {
  const { input, valid } = toolInputOf(part.arguments);
  return { block: { type: "server_tool_use", id: part.id, name: shownAs, input }, valid };
}

/**
 * Whether the call has a result block: not while it never finished (`incomplete` with neither result nor error),
 * which Messages shows as a `server_tool_use` alone.
 */
export function hasResultBlock(part: ServerToolPart): boolean {
  return part.status !== "incomplete" || part.result !== undefined || part.error !== undefined;
}

function failed(part: ServerToolPart): string | undefined {
  const error = serverToolError(part);
  return error ?? (part.status === "failed" ? "failed" : undefined);
}

function webSearchContent(part: ServerToolPart): unknown {
  const error = failed(part);
  if (error !== undefined) return { type: "web_search_tool_result_error", error_code: errorCode(error, SEARCH_ERROR_CODES, "unavailable") };
  const results = isPlainObject(part.result) && Array.isArray(part.result.results) ? part.result.results : [];
  return results.filter(isPlainObject).map((entry) => ({
    type: "web_search_result",
    url: typeof entry.url === "string" ? entry.url : "",
    title: typeof entry.title === "string" ? entry.title : "",
    // Anthropic's own, when its search ran (providers/anthropic keeps it in the result); the gateway's search has none.
    encrypted_content: typeof entry.encrypted_content === "string" ? entry.encrypted_content : "",
    page_age: typeof entry.page_age === "string" ? entry.page_age : null,
  }));
}

function webFetchContent(part: ServerToolPart): unknown {
  const error = failed(part);
  if (error !== undefined) return { type: "web_fetch_tool_error", error_code: errorCode(error, FETCH_ERROR_CODES, "url_not_accessible") };
  const result = isPlainObject(part.result) ? part.result : {};
  const text = typeof result.content === "string" ? result.content : result.content === undefined ? "" : JSON.stringify(result.content);
  return {
    type: "web_fetch_result",
    url: typeof result.url === "string" ? result.url : "",
    retrieved_at: typeof result.retrieved_at === "string" ? result.retrieved_at : null,
    content: {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: text },
      title: typeof result.title === "string" ? result.title : null,
    },
  };
}

/**
 * The result block of a call that has one (see `hasResultBlock`). A tool the client declared in the peer's spelling
 * gets the peer's block type (`openrouter_<tool>_tool_result`).
 */
export function serverToolResultBlock(part: ServerToolPart, shownAs = part.name): Block {
  const tool = toolShortName(part.name);
  const brand = shownAs.startsWith(PEER_PREFIX) ? PEER_PREFIX.slice(0, -1) : "service";
  switch (part.name) {
    case "service:web_search":
    case "web_search": // Anthropic's own search, declared by the client as its typed tool (`web_search_20250305`)
      return { type: "web_search_tool_result", tool_use_id: part.id, content: webSearchContent(part) };
    case "service:web_fetch":
      return { type: "web_fetch_tool_result", tool_use_id: part.id, content: webFetchContent(part) };
    default: {
      // What the model saw: the result, or `{error}` when the call failed (an `error` inside a result stays in it).
      const error = part.error ?? (part.status === "failed" ? "failed" : undefined);
      const content = error !== undefined ? { error } : (part.result ?? null);
      return { type: `${brand}_${tool}_tool_result`, tool_use_id: part.id, content };
    }
  }
}
