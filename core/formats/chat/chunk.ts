/** Shapes of `chat.completion.chunk` frames (OpenAI's streaming shape). */
import type { AlignmentReport } from "../../model/response.ts";
import type { ChatError } from "./error.ts";
import type { ChatAudioOut, ChatLogprobs } from "./encode.ts";
import type { ChatFinishReason } from "./finish.ts";
import type { ReasoningDetailOut } from "./reasoning-details.ts";
import type { ChatServerToolCallDelta } from "./server-tool-calls.ts";
import type { ChatUsage } from "./usage.ts";

/** A tool-call delta: the first one for an index carries id/type/name, later ones only argument text. */
export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

/** What changed in this chunk; a client concatenates strings and merges tool calls / details by `index`. */
export interface ChatDelta {
  role?: "assistant";
  content?: string;
  refusal?: string;
  reasoning?: string;
  reasoning_details?: ReasoningDetailOut[];
  tool_calls?: ChatToolCallDelta[];
  /** Server tools the gateway runs: an announcing delta and a closing delta per `index` (./server-tool-calls.ts). */
  server_tool_calls?: ChatServerToolCallDelta[];
  annotations?: unknown[];
  /** Generated images (image output), each whole in one delta; a client appends them to `message.images`. */
  images?: Array<{ type: "image_url"; image_url: { url: string }; index: number }>;
  /** A piece of the audio the model speaks; a client appends `data` and `transcript` (OpenAI's streamed audio). */
  audio?: ChatAudioOut;
}

/** The single choice of a chunk (the gateway always returns one choice). */
export interface ChatChunkChoice {
  index: 0;
  delta: ChatDelta;
  logprobs: ChatLogprobs;
  finish_reason: ChatFinishReason | null;
  native_finish_reason: string | null;
}

/** One SSE `data:` payload. `choices` is empty on the usage and debug chunks. */
export type ChatChunk = {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  provider: string;
  service_tier: string | null;
  /** Left out: the peer SDK's chunk schema takes a string or nothing, and a stream has no fingerprint to give. */
  system_fingerprint?: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage;
  error?: ChatError;
  /** The alignment plugin's report (beta): on the last data chunk before `[DONE]`. */
  alignment?: AlignmentReport;
  service_metadata?: Record<string, unknown>;
  debug?: { echo_upstream_body: unknown };
};
