/**
 * What a named kind of OpenAI-compatible server changes in the chat-completions translation (./kinds/): the body
 * before it is sent, each reply chunk before it is read, the reply after it is translated, and the error dialect.
 * The plain adapter has none of them, so its calls run the translation alone.
 */
import type { CanonicalResponse, Finish, ProviderCall, StreamEvent, Usage } from "../../core/sdk/index.ts";
import type { UpstreamErrorMapper } from "../../core/sdk/provider.ts";
import type { ChatCompletion, ChatRequestBody } from "./wire.ts";

/**
 * Per reply (one call, streamed or not): state a kind keeps between chunks lives in the object. `chunk`, `usage` and
 * `finish` run inside the translation (no extra pass over the events); `events` wraps the stream, for what needs it.
 */
export interface ReplyQuirk {
  /** Each stream chunk, or the whole completion, before the translation reads it (changed in place). */
  chunk?(chunk: ChatCompletion): void;
  /** The usage the translation read, in the server's dialect → canonical. */
  usage?(usage: Usage): Usage;
  /** The finish the translation read → canonical. */
  finish?(finish: Finish): Finish;
  /** The whole reply after translation (changed in place). */
  response?(response: CanonicalResponse): void;
  /** The streamed reply's events after translation. */
  events?(events: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent>;
}

export interface ChatQuirks {
  /**
   * Adjusts the translated body before it is sent (refused fields dropped with a warning, renamed fields, ids). It
   * runs inside the translation (chat-calls.ts, the kit's `translate`): `call.request` is the translation's own copy,
   * and what the hook adds to its `warnings` is reported through `call.warn` with the translation's.
   */
  request?(body: ChatRequestBody, call: ProviderCall): void;
  /** The request hook sends the reasoning settings itself (the translation neither sends nor warns about them). */
  ownsReasoning?: boolean;
  /** The reply quirk of one call, or undefined when this call needs none. */
  reply?(call: ProviderCall): ReplyQuirk | undefined;
  /** Maps a non-2xx reply in the server's own error dialect. */
  mapError?: UpstreamErrorMapper;
}

/** The quirks of both, `first`'s applied first (its events transform sees the translation's events). */
export function combineReplies(first: ReplyQuirk | undefined, second: ReplyQuirk | undefined): ReplyQuirk | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const combined: ReplyQuirk = {};
  if (first.chunk || second.chunk) {
    combined.chunk = (chunk) => {
      first.chunk?.(chunk);
      second.chunk?.(chunk);
    };
  }
  const usage1 = first.usage;
  const usage2 = second.usage;
  if (usage1 || usage2) combined.usage = (usage) => (usage2 ? usage2(usage1 ? usage1(usage) : usage) : usage1!(usage));
  const finish1 = first.finish;
  const finish2 = second.finish;
  if (finish1 || finish2) combined.finish = (finish) => (finish2 ? finish2(finish1 ? finish1(finish) : finish) : finish1!(finish));
  if (first.response || second.response) {
    combined.response = (response) => {
      first.response?.(response);
      second.response?.(response);
    };
  }
  if (first.events || second.events) {
    combined.events = (events) => {
      const once = first.events ? first.events(events) : events;
      return second.events ? second.events(once) : once;
    };
  }
  return combined;
}
