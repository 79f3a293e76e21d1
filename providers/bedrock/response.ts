/** A Converse reply → canonical response. */
import type { CanonicalResponse, Part, ProviderCall, Warning } from "../../core/sdk/index.ts";
import { ANTHROPIC_REASONING_FORMAT, emptyUsage, isPlainObject, reporting, unexpectedBody, warnUnsupported } from "../../core/sdk/provider.ts";
import type { BedrockEndpoint } from "./endpoint.ts";
import { mapStopReason, mapUsage } from "./finish-usage.ts";
import { reasoningFormat } from "./models.ts";
import { jsonAnswerTool } from "./output.ts";
import type { WireConverseResponse, WireResponseBlock } from "./wire.ts";

/** One content block → a canonical part; blocks the gateway cannot relay are reported. */
function partOf(block: WireResponseBlock, format: string, answerTool: string | undefined, warnings: Warning[]): Part | undefined {
  if (typeof block.text === "string") return { type: "text", text: block.text };
  if (block.toolUse !== undefined) {
    const input = block.toolUse.input ?? {};
    if (answerTool !== undefined && block.toolUse.name === answerTool) return { type: "text", text: JSON.stringify(input) };
    return { type: "tool-call", id: block.toolUse.toolUseId ?? "", name: block.toolUse.name ?? "", arguments: JSON.stringify(input) };
  }
  if (block.reasoningContent !== undefined) {
    const { reasoningText, redactedContent } = block.reasoningContent;
    if (typeof redactedContent === "string") return { type: "reasoning", text: "", redacted: redactedContent, format };
    const part: Part = { type: "reasoning", text: reasoningText?.text ?? "", format };
    if (reasoningText?.signature) part.signature = reasoningText.signature;
    return part;
  }
  if (block.citationsContent !== undefined) {
    const text = (block.citationsContent.content ?? []).map((c) => c.text ?? "").join("");
    const citations = block.citationsContent.citations ?? [];
    return citations.length > 0 ? { type: "text", text, annotations: [...citations] } : { type: "text", text };
  }
  const member = Object.keys(block)[0] ?? "unknown";
  warnUnsupported(warnings, `content.${member}`, `Bedrock returned a ${member} block, which the gateway cannot relay; it was dropped`);
  return undefined;
}

/** Builds the canonical response; a reply without a message is a retryable 502 (never an empty success). */
export function fromConverseResponse(body: WireConverseResponse, requestId: string | null, call: ProviderCall, endpoint: BedrockEndpoint): CanonicalResponse {
  const content = body.output?.message?.content;
  if (!Array.isArray(content)) throw unexpectedBody(call, "no output message");
  const format = reasoningFormat(endpoint.traits, ANTHROPIC_REASONING_FORMAT);
  const answerTool = jsonAnswerTool(call.request, endpoint.traits);
  const parts: Part[] = [];
  for (const block of content) {
    if (!isPlainObject(block)) continue;
    const part = reporting(call, (warnings) => partOf(block as WireResponseBlock, format, answerTool, warnings));
    if (part !== undefined) parts.push(part);
  }
  const answered = answerTool !== undefined && !parts.some((p) => p.type === "tool-call");
  const response: CanonicalResponse = {
    id: requestId ?? call.helpers.id("gen-"),
    model: call.target.upstreamModel,
    provider: call.target.providerId,
    created: Math.floor(call.helpers.now() / 1000),
    parts,
    finish: mapStopReason(body.stopReason, answered),
    usage: body.usage ? mapUsage(body.usage) : emptyUsage(),
    warnings: [],
  };
  if (typeof body.serviceTier?.type === "string") response.serviceTier = body.serviceTier.type;
  return response;
}
