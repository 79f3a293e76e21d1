/**
 * The withheld reply in an alignment error's `metadata.alignment.rejected`: a chat assistant message
 * (no reasoning) for chat and Messages requests, or a Responses item list for Responses requests, whose ids the
 * plugin makes (`msg_<call>`, `fc_<call_id>`, `ctc_<call_id>`, `ig_<call>_<n>`).
 */
import type { CanonicalResponse } from "../../core/sdk/index.ts";

export function rejectedOf(format: string, response: CanonicalResponse, call: number): unknown {
  if (format === "responses") return responsesItems(response, call);
  let content = "";
  let refusal = "";
  const toolCalls: unknown[] = [];
  for (const part of response.parts) {
    if (part.type === "text") content += part.text;
    else if (part.type === "refusal") refusal += part.text;
    else if (part.type === "tool-call") toolCalls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments } });
  }
  return { role: "assistant", content: content === "" ? null : content, refusal: refusal === "" ? null : refusal, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

function responsesItems(response: CanonicalResponse, call: number): unknown[] {
  const items: unknown[] = [];
  let text = "";
  let images = 0;
  for (const part of response.parts) {
    if (part.type === "text") text += part.text;
    else if (part.type === "tool-call") items.push({ type: "function_call", id: `fc_${part.id}`, call_id: part.id, name: part.name, arguments: part.arguments });
    else if (part.type === "server-tool") items.push({ type: part.name, id: `ctc_${part.callId}`, call_id: part.callId, arguments: part.arguments, status: part.status });
    else if (part.type === "image") items.push({ type: "image_generation_call", id: `ig_${call}_${++images}`, result: part.url });
  }
  if (text !== "") items.unshift({ type: "message", id: `msg_${call}`, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  return items;
}
