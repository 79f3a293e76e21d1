/**
 * Canonical stream events: id-keyed start/delta/end parts, then usage and finish.
 * Every upstream stream is parsed into these and every format's stream encoder renders them, so
 * formats × providers never meet directly.
 */
import type { GatewayError } from "../errors.ts";
import type { AlignmentReport, Finish } from "./response.ts";
import type { Cost, Usage } from "./usage.ts";

export type StreamEvent =
  /** First event of every stream: identity of the generation. */
  | { type: "start"; id: string; model: string; provider: string; created: number; serviceTier?: string }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string; logprobs?: unknown[] }
  | { type: "text-end"; id: string; annotations?: unknown[] }
  | { type: "reasoning-start"; id: string; itemId?: string; format?: string }
  | { type: "reasoning-delta"; id: string; delta: string; kind?: "text" | "summary" }
  | { type: "reasoning-end"; id: string; signature?: string; encrypted?: string; redacted?: string }
  | { type: "tool-call-start"; id: string; name: string; itemId?: string }
  | { type: "tool-call-delta"; id: string; delta: string }
  | { type: "tool-call-end"; id: string }
  | { type: "refusal-delta"; id: string; delta: string }
  /** A whole image the model generated (image output arrives complete, never in pieces); `url` is data: or http(s). */
  | { type: "image"; id: string; url: string; mediaType?: string }
  /**
   * A piece of audio the model spoke. Streamed audio arrives in pieces (chat `delta.audio`): pieces with the same `id`
   * append `data` (base64) and `transcript`; the other fields, sent once, describe the whole. Whole audio is one piece.
   */
  | { type: "audio"; id: string; data?: string; transcript?: string; format?: string; audioId?: string; expiresAt?: number }
  /** The gateway starts running a server tool the model called (a Responses `output_item.added` in_progress). */
  | { type: "server-tool-start"; id: string; callId: string; name: string; arguments: string }
  /**
   * Live progress of a running server tool, between its start and end (fusion's panel phases). Responses shows it as
   * `response.<event>` with the item's `item_id` and `output_index` and `data`'s fields; the other formats, whose
   * wire has no such frames, show the tool's start and end only.
   */
  | { type: "server-tool-progress"; id: string; event: string; data: Record<string, unknown> }
  /** That tool finished: `result` on success, `error` on failure (the model sees `{error}`). */
  | { type: "server-tool-end"; id: string; status: "completed" | "failed" | "incomplete"; result?: unknown; error?: string }
  /**
   * Usage so far (the last one wins); `cost` is attached by the accounting stage before encoders see it. One with no
   * output before any content is the prompt count known up front (Gemini's first chunk, the simulator; Anthropic's
   * message_start says 1 output token): Messages shows it in `message_start`, and it is not the attempt's first output.
   */
  | { type: "usage"; usage: Usage; cost?: Cost }
  /** `alignment`: the alignment plugin's report, shown with the stream's final frames. */
  | { type: "finish"; finish: Finish; alignment?: AlignmentReport }
  /** In-band failure after the stream started; always the last event. */
  | { type: "error"; error: GatewayError }
  /** `debug.echo_upstream_body`: the transformed upstream request body. */
  | { type: "debug"; upstreamBody: unknown };

export type EventStream = AsyncIterable<StreamEvent>;
