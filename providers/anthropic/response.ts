/** Anthropic Message body → canonical response (ARCHITECTURE §1.1, Portkey-style `response` transform). */
import type { Part } from "../../core/model/parts.ts";
import type { CanonicalResponse } from "../../core/model/response.ts";
import { emptyUsage } from "../../core/model/usage.ts";
import type { Warning } from "../../core/model/warnings.ts";
import type { ProviderCall } from "../../core/registry/provider.ts";
import { ANTHROPIC_REASONING_FORMAT } from "../../core/formats/messages/reasoning-token.ts";
import { warnUnsupported } from "../shared/warnings.ts";
import { mapAnthropicError } from "./errors.ts";
import { mapStopReason, mapUsage } from "./finish-usage.ts";
import type { WireBlock, WireMessage } from "./wire.ts";

/** One response block → canonical part; blocks the canonical model cannot hold (server-tool traces) are reported. */
export function partOf(block: WireBlock, warnings: Warning[]): Part | undefined {
  switch (block.type) {
    case "text": {
      const text = block.text ?? "";
      return block.citations?.length ? { type: "text", text, annotations: block.citations } : { type: "text", text };
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
 * Builds the canonical response; a 200 body that is an error (never expected, but cheap to honour) is thrown.
 * Dropped blocks are reported on `request.warnings`, the list the pipeline copies into the response and shows in
 * `service_metadata` (the same sink the stream path uses).
 */
export function fromAnthropicMessage(body: WireMessage, call: ProviderCall): CanonicalResponse {
  if (body.type === "error") throw mapAnthropicError(200, body, new Headers(), call.helpers.error);
  const warnings: Warning[] = call.request.warnings;
  const parts: Part[] = [];
  for (const block of body.content ?? []) {
    const part = partOf(block, warnings);
    if (part !== undefined) parts.push(part);
  }
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
