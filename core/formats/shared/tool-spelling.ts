/**
 * Server-tool types as clients spell them. The gateway's own type is `service:<tool>`; the peer's SDK
 * (`@openrouter/sdk`) can only send `openrouter:<tool>` (its `responses.send` refuses any other server-tool type), so
 * that spelling is the same tool in every format: requests, replayed items and forced tool choices. A tool declared
 * under another spelling (the peer's, or a client's hosted-tool type such as OpenAI's `web_search`) keeps it in the
 * canonical tool's `spelling`, and the encoders show its calls as that client expects them (README "Server tools").
 */
import type { CanonicalRequest, StopCondition } from "../../model/request.ts";

export const SERVICE_PREFIX = "service:";
/** The peer gateway's prefix for the same tools. */
export const PEER_PREFIX = "openrouter:";

/** True for a server-tool type the gateway runs, in either spelling. */
export function isServiceSpelling(type: string): boolean {
  return type.startsWith(SERVICE_PREFIX) || type.startsWith(PEER_PREFIX);
}

/** `openrouter:<tool>` → `service:<tool>`; any other type as it is. */
export function serviceType(type: string): string {
  return type.startsWith(PEER_PREFIX) ? SERVICE_PREFIX + type.slice(PEER_PREFIX.length) : type;
}

/**
 * `stop_server_tools_when` with each `has_tool_call` naming the tool in our spelling (the array as it is when none
 * needs it, the common case).
 */
export function serviceStopConditions(conditions: StopCondition[] | undefined): StopCondition[] | undefined {
  if (conditions === undefined || !conditions.some((c) => c.type === "has_tool_call" && c.tool_name.startsWith(PEER_PREFIX))) return conditions;
  return conditions.map((c) => (c.type === "has_tool_call" ? { ...c, tool_name: serviceType(c.tool_name) } : c));
}

/**
 * How the client spelled the server tool whose canonical type is `type`, when it used another spelling than ours;
 * undefined when it used ours (or declared the tool under two spellings, which leaves ours as the one answer).
 */
export function clientSpelling(request: Pick<CanonicalRequest, "tools">, type: string): string | undefined {
  let spelling: string | undefined;
  for (const tool of request.tools) {
    if (tool.kind !== "server" || tool.type !== type) continue;
    if (tool.spelling === undefined || (spelling !== undefined && spelling !== tool.spelling)) return undefined;
    spelling = tool.spelling;
  }
  return spelling;
}

/** The peer's spelling of a tool declared as `openrouter:<tool>`, else undefined (OpenAI hosted types are not one). */
export function peerSpelling(request: Pick<CanonicalRequest, "tools">, type: string): string | undefined {
  const spelling = clientSpelling(request, type);
  return spelling?.startsWith(PEER_PREFIX) ? spelling : undefined;
}
