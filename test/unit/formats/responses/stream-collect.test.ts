/** stream ≡ collect: the streamed terminal object equals the non-streamed result of the same events. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { encodeResponses } from "../../../../core/formats/responses/encode.ts";
import { streamResponses } from "../../../../core/formats/responses/stream.ts";
import { collect } from "../../../../core/model/collect.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { context, drain, parseFrames, replay, TOOL_TURN, usage } from "./helpers.ts";

/** The events without cost: cost is attached by accounting, which `collect` does not model. */
const withoutCost = (events: StreamEvent[]): StreamEvent[] => events.map((e) => (e.type === "usage" ? { type: "usage", usage: e.usage } : e));

const CASES: Record<string, StreamEvent[]> = {
  "tool turn": withoutCost(TOOL_TURN),
  "text only, length": [
    { type: "start", id: "r", model: "m", provider: "p", created: 5 },
    { type: "text-start", id: "a" },
    { type: "text-delta", id: "a", delta: "Hello" },
    { type: "text-end", id: "a", annotations: [{ type: "url_citation", url: "https://x.test" }] },
    { type: "text-start", id: "b" },
    { type: "text-delta", id: "b", delta: " again" },
    { type: "usage", usage: usage(3, 2) },
    { type: "finish", finish: { reason: "length" } },
  ],
  "interleaved tool calls and reasoning text": [
    { type: "start", id: "r", model: "m", provider: "p", created: 5, serviceTier: "flex" },
    { type: "reasoning-start", id: "r1" },
    { type: "reasoning-delta", id: "r1", delta: "a" },
    { type: "reasoning-delta", id: "r1", delta: "b", kind: "summary" },
    { type: "tool-call-start", id: "c1", name: "f" },
    { type: "tool-call-start", id: "c2", name: "g" },
    { type: "tool-call-delta", id: "c2", delta: "{}" },
    { type: "tool-call-delta", id: "c1", delta: "{\"x\":1}" },
    { type: "reasoning-end", id: "r1", encrypted: "enc" },
    { type: "tool-call-end", id: "c1" },
    { type: "tool-call-end", id: "c2" },
    { type: "text-delta", id: "t", delta: "done" },
    { type: "finish", finish: { reason: "tool_calls" } },
  ],
  "error mid-stream": [
    { type: "start", id: "r", model: "m", provider: "p", created: 5 },
    { type: "text-delta", id: "t", delta: "par" },
    { type: "error", error: new GatewayError("rate_limit_exceeded", "slow down") },
  ],
};

function withoutCompletedAt(value: Record<string, unknown> | undefined): Record<string, unknown> {
  const { completed_at: _ignored, ...rest } = value ?? {};
  return rest;
}

describe("stream ≡ collect", () => {
  for (const [name, events] of Object.entries(CASES)) {
    test(name, async () => {
      const ctx = context({ stream: true, instructions: "x", tools: [{ type: "function", name: "f" }] }, { attempt: 1 });
      const frames = parseFrames(await drain(streamResponses(replay(events), ctx)));
      const streamed = frames.at(-1)?.data.response as Record<string, unknown>;
      const collected = encodeResponses(await collect(replay(events)), ctx);
      expect(withoutCompletedAt(streamed)).toEqual(withoutCompletedAt(collected));
      // The items announced by output_item.done are the items of the final object (same ids, same order).
      const done = frames.filter((f) => f.event === "response.output_item.done").map((f) => (f.data.item as Record<string, unknown>).id);
      const finalIds = (streamed.output as Array<Record<string, unknown>>).map((item) => item.id);
      if (streamed.status !== "failed") expect(done).toEqual(finalIds);
    });
  }
});
