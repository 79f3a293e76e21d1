/** Responses result → canonical response (Portkey-style `response` transform). */
import type { CanonicalResponse, Part, ProviderCall, ReasoningPart, ToolCallPart, Warning } from "../../core/sdk/index.ts";
import { emptyUsage, unexpectedBody } from "../../core/sdk/provider.ts";
import { RESPONSES_REASONING_FORMAT } from "./input.ts";
import { mapFailure, mapFinish, mapUsage } from "./usage.ts";
import { imageFromItem } from "./image-item.ts";
import { webSearchPart, withWebSearches } from "./web-search.ts";
import type { WireOutputItem, WireResponse } from "./wire.ts";

/** Reasoning item → part: `reasoning_text` content is the text, `summary_text` entries the summary. */
export function reasoningFromItem(item: WireOutputItem): ReasoningPart {
  const text = (item.content ?? []).filter((c) => c.type === "reasoning_text").map((c) => c.text ?? "").join("\n");
  const part: ReasoningPart = { type: "reasoning", text, format: item.format ?? RESPONSES_REASONING_FORMAT };
  const summary = (item.summary ?? []).map((s) => s.text ?? "");
  if (summary.length > 0) part.summary = summary;
  if (item.id !== undefined) part.id = item.id;
  if (typeof item.encrypted_content === "string") part.encrypted = item.encrypted_content;
  if (typeof item.signature === "string") part.signature = item.signature;
  return part;
}

/** function_call item → part: the call id is what the client echoes back; the item id is kept for round trips. */
export function toolCallFromItem(item: WireOutputItem, fallbackId: () => string): ToolCallPart {
  const part: ToolCallPart = { type: "tool-call", id: item.call_id ?? fallbackId(), name: item.name ?? "", arguments: item.arguments ?? "" };
  if (item.id !== undefined && item.id !== part.id) part.itemId = item.id;
  return part;
}

/**
 * Output items → parts in order (OpenAI's own web searches as server-tool parts); item kinds the canonical model
 * cannot hold (other hosted tools) are reported as warnings.
 */
export function partsFromOutput(output: WireOutputItem[], call: ProviderCall, warnings: Warning[]): { parts: Part[]; logprobs: unknown[] } {
  const parts: Part[] = [];
  const logprobs: unknown[] = [];
  output.forEach((item, index) => {
    switch (item.type) {
      case "message":
        for (const content of item.content ?? []) {
          if (content.type === "output_text") {
            const text: Part = { type: "text", text: content.text ?? "" };
            if (content.annotations && content.annotations.length > 0) text.annotations = content.annotations;
            parts.push(text);
            if (Array.isArray(content.logprobs)) logprobs.push(...content.logprobs);
          } else if (content.type === "refusal") parts.push({ type: "refusal", text: content.refusal ?? "" });
        }
        break;
      case "reasoning":
        parts.push(reasoningFromItem(item));
        break;
      case "function_call":
        parts.push(toolCallFromItem(item, () => call.helpers.id("call")));
        break;
      case "web_search_call":
        parts.push(webSearchPart(item, () => call.helpers.id("ws")));
        break;
      case "image_generation_call": {
        const image = imageFromItem(item);
        if (image !== undefined) parts.push(image);
        else warnings.push({ code: "unsupported_output", field: `output[${index}]`, message: `upstream image_generation_call (status ${item.status ?? "unknown"}) had no image` });
        break;
      }
      default:
        warnings.push({ code: "unsupported_output", field: `output[${index}]`, message: `upstream output item of type ${item.type} was dropped` });
    }
  });
  return { parts, logprobs };
}

/** Translates a finished result; a `failed` result (or one carrying `error`) is thrown as the mapped error. */
export function fromResponsesResult(body: WireResponse, call: ProviderCall): CanonicalResponse {
  if (body.status === "failed" || (body.error !== undefined && body.error !== null)) {
    throw mapFailure(body.error, body.error_type, call);
  }
  if (!Array.isArray(body.output)) throw unexpectedBody(call, "no output");
  const warnings: Warning[] = [];
  const { parts, logprobs } = partsFromOutput(body.output, call, warnings);
  const response: CanonicalResponse = {
    id: body.id ?? "",
    model: body.model ?? call.target.upstreamModel,
    provider: call.target.providerId,
    created: body.created_at ?? Math.floor(call.helpers.now() / 1000),
    parts,
    finish: mapFinish(body, parts.some((p) => p.type === "tool-call")),
    usage: withWebSearches(body.usage ? mapUsage(body.usage) : emptyUsage(), parts.filter((p) => p.type === "server-tool").length),
    warnings,
  };
  if (typeof body.completed_at === "number") response.completed = body.completed_at;
  if (typeof body.service_tier === "string") response.serviceTier = body.service_tier;
  if (logprobs.length > 0) response.logprobs = logprobs;
  return response;
}
