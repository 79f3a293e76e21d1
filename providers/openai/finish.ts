/** Chat-completions finish reasons → the unified `Finish`. */
import type { Finish, FinishReason } from "../../core/sdk/index.ts";

const UNIFIED: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  content_filter: "content_filter",
  error: "error",
};

/**
 * Maps `finish_reason`; `raw` prefers OpenRouter's `native_finish_reason` (the provider's own word, e.g. `end_turn`)
 * and falls back to `finish_reason`, so nothing the upstream said is lost.
 */
export function mapFinish(finishReason: string | null | undefined, nativeReason?: string | null): Finish {
  const reason = (finishReason && Object.hasOwn(UNIFIED, finishReason) ? UNIFIED[finishReason] : undefined) ?? "other";
  const raw = nativeReason ?? finishReason ?? undefined;
  return raw === undefined ? { reason } : { reason, raw };
}
