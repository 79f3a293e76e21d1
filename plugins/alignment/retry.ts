/**
 * The request of a retry after a blocked turn: the same request, preferring the provider that served
 * the blocked turn, with one user message appended that carries the withheld reply, the rules it broke and the
 * instruction to rewrite it.
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { CanonicalResponse } from "../../core/sdk/index.ts";
import { assistantView } from "./message.ts";

export function retryRequest(request: CanonicalRequest, blocked: CanonicalResponse, broken: ReadonlyArray<{ index: number; rule: string }>): CanonicalRequest {
  const view = assistantView(blocked);
  const reply = view.content ?? JSON.stringify({ tool_calls: view.tool_calls, refusal: view.refusal });
  const rules = broken.map((b) => `${b.index}: ${b.rule}`).join("\n");
  const text =
    `Your previous reply was withheld because it broke these rules:\n${rules}\n\n` +
    `Previous reply:\n${reply}\n\n` +
    "Write your reply again so that it follows every rule. Answer the original request; do not mention this note.";
  const preferences = (request.provider ?? {}) as { order?: string[] | null };
  return {
    ...request,
    messages: [...request.messages, { role: "user", parts: [{ type: "text", text }] }],
    ...(blocked.provider && !preferences.order ? { provider: { ...request.provider, order: [blocked.provider] } } : {}),
  };
}

/** The rules a judgement found broken, with their index in the request. */
export function brokenRules(rules: readonly string[], judged: ReadonlyArray<{ broken: boolean }>): Array<{ index: number; rule: string }> {
  return judged.flatMap((r, index) => (r.broken ? [{ index, rule: rules[index]! }] : []));
}
