/** A simulator plan → canonical stream events, paced by the plan's timing (the in-process adapter's stream). */
import type { ProviderCall, StreamEvent, Usage } from "../../core/sdk/index.ts";
import { streamInterrupted } from "../../core/sdk/provider.ts";
import type { SimPiece, SimPlan } from "./engine.ts";
import { sleep, yieldIfBusy } from "./sleep.ts";

type Open = { kind: "reasoning" | "text" | "tool"; id: string } | undefined;

/**
 * Emits start, the prompt's usage, one event group per piece (waiting `chunkDelayMs` between pieces), then usage and finish.
 * With `cutAfter` the stream stops after that many pieces with the error an adapter reports for a cut upstream
 * stream. An abort of `call.signal` rejects with its reason between pieces. Pieces are made as they are read.
 */
export async function* planEvents(plan: SimPlan, call: ProviderCall): AsyncGenerator<StreamEvent, void, undefined> {
  // Without delays, the event loop still gets its turns (sleep.ts): a busy simulator answers in slices.
  await yieldIfBusy();
  yield {
    type: "start",
    id: plan.id,
    model: call.target.upstreamModel,
    provider: call.target.providerId,
    created: Math.floor(call.helpers.now() / 1000),
  };
  // The prompt is counted before the first token, as Anthropic's message_start reports it: a Messages client sees
  // its input tokens there. The final usage event below supersedes it.
  yield { type: "usage", usage: usageOf(plan.usage.promptTokens, 0, 0) };
  let open: Open;
  const count = plan.pieceCount;
  for (let i = 0; i < count; i++) {
    if (i > 0 && plan.timing.chunkDelayMs > 0) await sleep(plan.timing.chunkDelayMs, call.signal);
    else await yieldIfBusy();
    call.signal.throwIfAborted();
    if (plan.timing.cutAfter !== undefined && i >= plan.timing.cutAfter) break;
    const piece = plan.piece(i);
    if (piece === undefined) continue;
    const out: StreamEvent[] = [];
    open = pieceEvents(piece, open, out);
    yield* out;
  }
  if (plan.timing.cutAfter !== undefined) {
    yield { type: "error", error: streamInterrupted(call, "upstream stream ended unexpectedly") };
    return;
  }
  const closing: StreamEvent[] = [];
  close(open, closing);
  yield* closing;
  yield { type: "usage", usage: usageOf(plan.usage.promptTokens, plan.usage.completionTokens, plan.usage.reasoningTokens) };
  yield { type: "finish", finish: { reason: plan.finishReason, raw: plan.finishReason } };
}

function usageOf(input: number, output: number, reasoning: number): Usage {
  return { input: { total: input, cacheRead: 0, cacheWrite: 0 }, output: { total: output, reasoning } };
}

function pieceEvents(piece: SimPiece, open: Open, out: StreamEvent[]): Open {
  switch (piece.kind) {
    case "reasoning":
    case "text": {
      let current = open;
      if (current?.kind !== piece.kind) {
        close(current, out);
        current = { kind: piece.kind, id: `${piece.kind}_0` };
        out.push({ type: piece.kind === "text" ? "text-start" : "reasoning-start", id: current.id });
      }
      out.push({ type: piece.kind === "text" ? "text-delta" : "reasoning-delta", id: current.id, delta: piece.text });
      return current;
    }
    case "tool-start":
      close(open, out);
      out.push({ type: "tool-call-start", id: piece.id, name: piece.name });
      return { kind: "tool", id: piece.id };
    case "tool-args":
      if (open?.kind === "tool") out.push({ type: "tool-call-delta", id: open.id, delta: piece.text });
      return open;
  }
}

function close(open: Open, out: StreamEvent[]): void {
  if (open === undefined) return;
  out.push({ type: open.kind === "text" ? "text-end" : open.kind === "reasoning" ? "reasoning-end" : "tool-call-end", id: open.id });
}
