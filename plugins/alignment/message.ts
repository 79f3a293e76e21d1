/**
 * What the evaluator sees of a model turn: the assistant message only — `{content, tool_calls
 * [{name, arguments, namespace?}], refusal, images}` — with server tools the gateway ran counted as calls (their
 * delivered output is part of the turn). Too much to judge is `cut`: text over 10,000 UTF-16 units, more than 16 tool
 * calls, tool-call JSON over 4,000, a refusal over 1,000.
 */
import type { CanonicalResponse } from "../../core/sdk/index.ts";

export interface AssistantView {
  content: string | null;
  tool_calls: Array<{ name: string; arguments: string; namespace?: string }>;
  refusal: string | null;
  images: string[];
}

export function assistantView(response: CanonicalResponse): AssistantView {
  let content = "";
  let refusal = "";
  const calls: AssistantView["tool_calls"] = [];
  const images: string[] = [];
  for (const part of response.parts) {
    if (part.type === "text") content += part.text;
    else if (part.type === "refusal") refusal += part.text;
    else if (part.type === "tool-call") calls.push({ name: part.name, arguments: part.arguments });
    else if (part.type === "server-tool") calls.push({ name: part.name, arguments: part.arguments, namespace: "service" });
    // The evaluator judges words: an image is named, never sent (a data URL could be megabytes).
    else if (part.type === "image") images.push(part.url.startsWith("data:") ? "[generated image]" : part.url);
  }
  return { content: content === "" ? null : content, tool_calls: calls, refusal: refusal === "" ? null : refusal, images };
}

/** True when the turn is too large to judge (outcome `unavailable`, reason `cut`). */
export function isCut(view: AssistantView): boolean {
  if ((view.content?.length ?? 0) > 10_000) return true;
  if (view.tool_calls.length > 16) return true;
  if (view.tool_calls.some((c) => c.arguments.length > 4_000)) return true;
  return (view.refusal?.length ?? 0) > 1_000;
}
