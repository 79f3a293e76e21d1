/** Canonical response → Messages result body (spec "Messages result"). */
import type { ReasoningPart } from "../../model/parts.ts";
import type { CanonicalResponse } from "../../model/response.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import { trailerMetadata } from "../shared/trailer-metadata.ts";
import type { EncodeContext } from "../format.ts";
import { containerField } from "./container-field.ts";
import { isAnthropicReasoning, signatureFor } from "./reasoning-token.ts";
import { citationsOf, stopDetailsOf, stopReasonOf, stopSequenceOf, toolInputOf, usageOf } from "./result-fields.ts";
import { imageBlockOf } from "./image-block.ts";
import { peerSpelling } from "../shared/tool-spelling.ts";
import { hasResultBlock, serverToolResultBlock, serverToolUseBlock } from "./server-tool-blocks.ts";

/** Text of a reasoning part as one `thinking` string (raw reasoning, then any summaries). */
export function thinkingTextOf(part: ReasoningPart): string {
  const summary = part.summary?.join("\n\n") ?? "";
  return part.text === "" ? summary : summary === "" ? part.text : `${part.text}\n\n${summary}`;
}

/** One reasoning part → `thinking` or `redacted_thinking` block. */
export function thinkingBlockOf(part: ReasoningPart): Record<string, unknown> {
  if (part.redacted !== undefined && isAnthropicReasoning(part)) return { type: "redacted_thinking", data: part.redacted };
  return { type: "thinking", thinking: thinkingTextOf(part), signature: signatureFor(part) ?? "" };
}

/**
 * Builds the result. What Messages cannot show (audio or file output, invalid tool input) is recorded on
 * `ctx.request.warnings`: the list `service_metadata` reports (the encoder is given no other sink).
 */
export function encodeMessagesResult(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  const warnings: Warning[] = ctx.request.warnings;
  let refusal = "";
  response.parts.forEach((part, i) => {
    switch (part.type) {
      case "text": {
        const { citations, dropped } = citationsOf(part.annotations, part.text);
        if (dropped > 0) warn(warnings, "unsupported_field", `content[${i}].citations`, `${dropped} annotation(s) with no Messages citation shape were dropped`);
        content.push({ type: "text", text: part.text, citations });
        return;
      }
      case "reasoning":
        content.push(thinkingBlockOf(part));
        return;
      case "tool-call": {
        const { input, valid } = toolInputOf(part.arguments);
        if (!valid) warn(warnings, "approximated", `content[${i}].input`, `Arguments of tool call ${part.id} were not a JSON object; sent as {}`);
        content.push({ type: "tool_use", id: part.id, name: part.name, input });
        return;
      }
      case "server-tool": {
        // The call, then its result right after it (the stream encoder keeps each pair adjacent too).
        const shownAs = peerSpelling(ctx.request, part.name);
        const { block, valid } = serverToolUseBlock(part, shownAs);
        if (!valid) warn(warnings, "approximated", `content[${i}].input`, `Arguments of server tool call ${part.id} were not a JSON object; sent as {}`);
        content.push(block);
        if (hasResultBlock(part)) content.push(serverToolResultBlock(part, shownAs));
        return;
      }
      case "image":
        content.push(imageBlockOf(part));
        return;
      case "audio":
        warn(warnings, "unsupported_field", `content[${i}]`, "Audio output cannot be shown in a Messages result and was dropped");
        return;
      case "refusal":
        // Messages has no refusal block: the text is shown and the stop reason says it was a refusal.
        refusal += part.text;
        content.push({ type: "text", text: part.text, citations: null });
        return;
      default:
        warn(warnings, "unsupported_field", `content[${i}]`, `A ${part.type} output part cannot be shown in a Messages result and was dropped`);
    }
  });
  const reason = stopReasonOf(response.finish);
  const body: Record<string, unknown> = {
    id: ctx.generationId,
    type: "message",
    role: "assistant",
    model: response.model,
    content,
    stop_reason: reason,
    stop_sequence: stopSequenceOf(response.finish, reason),
    stop_details: stopDetailsOf(reason, refusal, response.finish.refusal),
    container: containerField(ctx),
    usage: usageOf(response.usage, response.cost, response.serviceTier),
    provider: response.provider,
  };
  if (response.alignment) body.alignment = response.alignment;
  const metadata = trailerMetadata(ctx.trailer, ctx.request.warnings);
  if (metadata) body.service_metadata = metadata;
  return body;
}
