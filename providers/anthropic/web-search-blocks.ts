/**
 * Anthropic's web search blocks ↔ the canonical server-tool part. Anthropic reports each search as a `server_tool_use`
 * (`name: web_search`, `input: {query}`) and a `web_search_tool_result` naming it (`tool_use_id`), whose content is
 * the results (`web_search_result` `{url, title, encrypted_content, page_age}`) or a `web_search_tool_result_error`.
 * The part's result is `{query, results: [{url, title, page_age?, encrypted_content?}]}`: what the gateway's own
 * search returns, plus the encrypted content Anthropic needs to see again when the turn is replayed.
 */
import type { CanonicalRequest, ServerToolPart } from "../../core/sdk/index.ts";
import { isNativeWebSearch, isPlainObject as isRecord, WEB_SEARCH } from "../../core/sdk/provider.ts";
import { ANTHROPIC_WEB_SEARCH_NAME } from "./web-search-tool.ts";
import type { WireBlock, WireBlockParam } from "./wire.ts";

/** Anthropic's `web_search_tool_result_error.error_code` values. */
const ERROR_CODES: ReadonlySet<string> = new Set(["invalid_tool_input", "unavailable", "max_uses_exceeded", "too_many_requests", "query_too_long", "request_too_large"]);

type Outcome = Pick<ServerToolPart, "status" | "result" | "error">;

/**
 * The tool name the parts carry: `service:web_search` when the request asked for it natively (the client knows that
 * name), else Anthropic's own `web_search` (a Messages client's typed tool, whose blocks it gets back as they were).
 */
export function webSearchPartName(request: CanonicalRequest): string {
  return request.tools.some(isNativeWebSearch) ? WEB_SEARCH : ANTHROPIC_WEB_SEARCH_NAME;
}

export function isWebSearchUse(block: WireBlock): boolean {
  return block.type === "server_tool_use" && block.name === ANTHROPIC_WEB_SEARCH_NAME;
}

export function isWebSearchResult(block: WireBlock): boolean {
  return block.type === "web_search_tool_result" && typeof block.tool_use_id === "string";
}

/** The query of a call's arguments (JSON text), or "" when it has none. */
export function queryOf(args: string): string {
  try {
    const input: unknown = JSON.parse(args);
    return isRecord(input) && typeof input.query === "string" ? input.query : "";
  } catch {
    return "";
  }
}

/** A result block's content → the part's status and result (or error code). */
export function webSearchOutcome(content: unknown, query: string): Outcome {
  if (isRecord(content) && typeof content.error_code === "string") return { status: "failed", error: content.error_code };
  if (!Array.isArray(content)) return { status: "failed", error: "unavailable" };
  const results = content.filter(isRecord).map((entry) => {
    const out: Record<string, unknown> = { url: typeof entry.url === "string" ? entry.url : "", title: typeof entry.title === "string" ? entry.title : "" };
    if (typeof entry.page_age === "string") out.page_age = entry.page_age;
    if (typeof entry.encrypted_content === "string") out.encrypted_content = entry.encrypted_content;
    return out;
  });
  return { status: "completed", result: { query, results } };
}

/** One search of a non-streamed reply: its use block and, when the reply has it, the result block. */
export function webSearchPart(use: WireBlock, result: WireBlock | undefined, name: string): ServerToolPart {
  const id = use.id ?? "";
  const args = JSON.stringify(isRecord(use.input) ? use.input : {});
  const part: ServerToolPart = { type: "server-tool", id, callId: id, name, arguments: args, status: "incomplete" };
  // Without a result the search never finished (a `pause_turn` reply): it stays incomplete.
  return result === undefined ? part : { ...part, ...webSearchOutcome(result.content, queryOf(args)) };
}

/** The `web_search_tool_result` content of a replayed part, or undefined when Anthropic would not accept it. */
function resultContent(part: ServerToolPart): unknown {
  if (part.status === "failed" || part.error !== undefined) {
    const code = part.error !== undefined && ERROR_CODES.has(part.error) ? part.error : "unavailable";
    return { type: "web_search_tool_result_error", error_code: code };
  }
  const results = isRecord(part.result) && Array.isArray(part.result.results) ? part.result.results : undefined;
  if (part.status !== "completed" || results === undefined) return undefined;
  // Anthropic checks its encrypted content: results without it (shown by another format, or the gateway's own
  // search) cannot be made to look like Anthropic's.
  if (!results.every((entry) => isRecord(entry) && typeof entry.encrypted_content === "string")) return undefined;
  return (results as Array<Record<string, unknown>>).map((entry) => ({
    type: "web_search_result",
    url: entry.url,
    title: entry.title,
    encrypted_content: entry.encrypted_content,
    page_age: typeof entry.page_age === "string" ? entry.page_age : null,
  }));
}

/**
 * A web search replayed in an assistant turn → the `server_tool_use` + `web_search_tool_result` pair Anthropic sent.
 * Undefined for any other server tool, and for a search Anthropic did not run (ids are Anthropic's `srvtoolu_…`).
 */
export function webSearchHistoryBlocks(part: ServerToolPart): WireBlockParam[] | undefined {
  if (part.name !== WEB_SEARCH && part.name !== ANTHROPIC_WEB_SEARCH_NAME) return undefined;
  if (!/^srvtoolu_[a-zA-Z0-9_]+$/.test(part.id)) return undefined;
  const content = resultContent(part);
  if (content === undefined) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(part.arguments);
  } catch {
    input = undefined;
  }
  return [
    { type: "server_tool_use", id: part.id, name: ANTHROPIC_WEB_SEARCH_NAME, input: isRecord(input) ? input : {} },
    { type: "web_search_tool_result", tool_use_id: part.id, content },
  ];
}
