/**
 * Server-tool usage counters as the OpenAI-style formats show them: chat and Responses carry
 * `usage.server_tool_use_details {tool_calls_requested, tool_calls_executed, web_search_requests}` (OAS
 * `ServerToolUseDetails`); the request counters of individual tools are also listed under `server_tool_use`.
 */
import type { Usage } from "../../model/usage.ts";

/** The agent loop's own counters: how many calls the model asked for and how many ran. */
const LOOP_COUNTERS = ["tool_calls_requested", "tool_calls_executed"] as const;

/** The keys of `server_tool_use_details`. */
const DETAIL_KEYS = [...LOOP_COUNTERS, "web_search_requests"] as const;

export type ServerToolUseDetails = Record<(typeof DETAIL_KEYS)[number], number>;

/** A counter's value; counters that are absent (or not numbers) count 0. */
function counter(tools: Record<string, number>, key: string): number {
  const value = tools[key];
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** `server_tool_use_details` when the usage has any of its three counters (the missing ones are 0); else undefined. */
export function serverToolUseDetails(usage: Usage): ServerToolUseDetails | undefined {
  const tools = usage.serverTools;
  if (!tools || !DETAIL_KEYS.some((key) => key in tools)) return undefined;
  return {
    tool_calls_requested: counter(tools, "tool_calls_requested"),
    tool_calls_executed: counter(tools, "tool_calls_executed"),
    web_search_requests: counter(tools, "web_search_requests"),
  };
}

/**
 * Per-tool request counters (`web_search_requests`, `web_fetch_requests` and any other `*_requests` an upstream
 * reported), both named ones defaulting to 0, when the usage has any server-tool counter; else undefined. The loop's
 * own counters are left out: they are not requests to a tool, and `server_tool_use_details` shows them.
 */
export function serverToolRequests(usage: Usage): Record<string, number> | undefined {
  const tools = usage.serverTools;
  if (!tools || Object.keys(tools).length === 0) return undefined;
  const out: Record<string, number> = { web_search_requests: 0, web_fetch_requests: 0 };
  for (const key of Object.keys(tools)) {
    if (!(LOOP_COUNTERS as readonly string[]).includes(key)) out[key] = counter(tools, key);
  }
  return out;
}
