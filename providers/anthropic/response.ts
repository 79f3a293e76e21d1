/** Anthropic Message body → canonical response (Portkey-style `response` transform). */
import type { CanonicalResponse, Part, ProviderCall, Warning } from "../../core/sdk/index.ts";
import { ANTHROPIC_REASONING_FORMAT, emptyUsage, reporting, unexpectedBody, warnUnsupported } from "../../core/sdk/provider.ts";
import { mapAnthropicError } from "./errors.ts";
import { annotationsOf } from "./citations.ts";
import { mapStopReason, mapUsage } from "./finish-usage.ts";
import { isWebSearchResult, isWebSearchUse, webSearchPart, webSearchPartName } from "./web-search-blocks.ts";
import type { WireBlock, WireMessage } from "./wire.ts";

/**
 * One response block → canonical part; blocks the canonical model cannot hold (traces of server tools other than web
 * search) are reported. Web search blocks come in pairs and are read by `partsOf`.
 */
export function partOf(block: WireBlock, warnings: Warning[]): Part | undefined {
  switch (block.type) {
    case "text": {
      const text = block.text ?? "";
      return block.citations?.length ? { type: "text", text, annotations: annotationsOf(block.citations, text) } : { type: "text", text };
    }
    case "thinking": {
      const part: Part = { type: "reasoning", text: block.thinking ?? "", format: ANTHROPIC_REASONING_FORMAT };
      if (block.signature) part.signature = block.signature;
      return part;
    }
    case "redacted_thinking":
      return { type: "reasoning", text: "", redacted: block.data ?? "", format: ANTHROPIC_REASONING_FORMAT };
    case "tool_use":
      return { type: "tool-call", id: block.id ?? "", name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) };
    default:
      warnUnsupported(warnings, `content.${block.type}`, `Anthropic returned a ${block.type} block, which the gateway cannot relay; it was dropped`);
      return undefined;
  }
}

/**
 * The blocks in order. A web search is one part at its `server_tool_use`, its `web_search_tool_result` (wherever it
 * sits) folded in; a result block whose call is not in the reply has nothing to attach to and is reported.
 */
function partsOf(blocks: readonly WireBlock[], searchName: string, warnings: Warning[]): Part[] {
  const results = new Map(blocks.filter(isWebSearchResult).map((block) => [block.tool_use_id, block]));
  const calls = new Set(blocks.filter(isWebSearchUse).map((block) => block.id));
  const parts: Part[] = [];
  for (const block of blocks) {
    if (isWebSearchUse(block)) parts.push(webSearchPart(block, results.get(block.id), searchName));
    else if (isWebSearchResult(block) && calls.has(block.tool_use_id)) continue;
    else {
      const part = partOf(block, warnings);
      if (part !== undefined) parts.push(part);
    }
  }
  return parts;
}

/**
 * Builds the canonical response; a 200 body that is an error (never expected, but cheap to honour) is thrown.
 * Dropped blocks are reported through `call.warn`: the pipeline copies them into the response and shows them in
 * `service_metadata` (as on the stream path).
 */
export function fromAnthropicMessage(body: WireMessage, call: ProviderCall): CanonicalResponse {
  if (body.type === "error") throw mapAnthropicError(200, body, new Headers(), call.helpers.error);
  if (!Array.isArray(body.content)) throw unexpectedBody(call, "no content blocks");
  const content = body.content;
  const parts = reporting(call, (warnings) => partsOf(content, webSearchPartName(call.request), warnings));
  const response: CanonicalResponse = {
    id: body.id ?? "",
    model: body.model ?? call.target.upstreamModel,
    provider: call.target.providerId,
    created: Math.floor(call.helpers.now() / 1000),
    parts,
    finish: mapStopReason(body.stop_reason, body.stop_sequence, body.stop_details),
    usage: body.usage ? mapUsage(body.usage) : emptyUsage(),
    warnings: [],
  };
  if (typeof body.usage?.service_tier === "string") response.serviceTier = body.usage.service_tier;
  return response;
}
