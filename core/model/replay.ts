/**
 * A complete canonical response replayed as canonical events, for upstreams that answer a streaming request with
 * one JSON body (some OpenAI-compatible servers ignore `stream: true`). `collect(eventsFromResponse(r))` gives back
 * `r`'s parts (server-tool parts included), usage and finish: the inverse of `collect` (./collect.ts).
 */
import type { StreamEvent } from "./events.ts";
import type { CanonicalResponse } from "./response.ts";

/** Yields start, one start/delta/end group per output part, usage and finish. */
export async function* eventsFromResponse(response: CanonicalResponse): AsyncGenerator<StreamEvent, void, undefined> {
  const start: Extract<StreamEvent, { type: "start" }> = { type: "start", id: response.id, model: response.model, provider: response.provider, created: response.created };
  if (response.serviceTier !== undefined) start.serviceTier = response.serviceTier;
  yield start;
  let n = 0;
  for (const part of response.parts) {
    const id = `part_${n++}`;
    switch (part.type) {
      case "text":
        yield { type: "text-start", id };
        yield response.logprobs?.length ? { type: "text-delta", id, delta: part.text, logprobs: response.logprobs } : { type: "text-delta", id, delta: part.text };
        yield part.annotations?.length ? { type: "text-end", id, annotations: part.annotations } : { type: "text-end", id };
        break;
      case "reasoning": {
        const begin: Extract<StreamEvent, { type: "reasoning-start" }> = { type: "reasoning-start", id };
        if (part.id !== undefined) begin.itemId = part.id;
        if (part.format !== undefined) begin.format = part.format;
        yield begin;
        if (part.text !== "") yield { type: "reasoning-delta", id, delta: part.text };
        // Each summary item arrives as one delta; collect() folds consecutive summary deltas into one item.
        for (const summary of part.summary ?? []) yield { type: "reasoning-delta", id, delta: summary, kind: "summary" };
        const end: Extract<StreamEvent, { type: "reasoning-end" }> = { type: "reasoning-end", id };
        if (part.signature !== undefined) end.signature = part.signature;
        if (part.encrypted !== undefined) end.encrypted = part.encrypted;
        if (part.redacted !== undefined) end.redacted = part.redacted;
        yield end;
        break;
      }
      case "tool-call":
        yield part.itemId === undefined ? { type: "tool-call-start", id: part.id, name: part.name } : { type: "tool-call-start", id: part.id, name: part.name, itemId: part.itemId };
        if (part.arguments !== "") yield { type: "tool-call-delta", id: part.id, delta: part.arguments };
        yield { type: "tool-call-end", id: part.id };
        break;
      case "refusal":
        yield { type: "refusal-delta", id, delta: part.text };
        break;
      case "server-tool": {
        // The part's own id: it is the item / block id the client sees, unique across the reply.
        yield { type: "server-tool-start", id: part.id, callId: part.callId, name: part.name, arguments: part.arguments };
        const end: Extract<StreamEvent, { type: "server-tool-end" }> = { type: "server-tool-end", id: part.id, status: part.status };
        if (part.result !== undefined) end.result = part.result;
        if (part.error !== undefined) end.error = part.error;
        yield end;
        break;
      }
      case "image":
        // In an output an image part is one the model generated (image output).
        yield part.mediaType === undefined ? { type: "image", id, url: part.url } : { type: "image", id, url: part.url, mediaType: part.mediaType };
        break;
      case "audio": {
        // Whole audio is one piece (see the `audio` event).
        const piece: Extract<StreamEvent, { type: "audio" }> = { type: "audio", id, data: part.data };
        if (part.transcript !== undefined) piece.transcript = part.transcript;
        if (part.format !== undefined) piece.format = part.format;
        if (part.id !== undefined) piece.audioId = part.id;
        if (part.expiresAt !== undefined) piece.expiresAt = part.expiresAt;
        yield piece;
        break;
      }
      default:
        // Inputs (files, tool results) never appear in an upstream's output.
        break;
    }
  }
  yield response.cost ? { type: "usage", usage: response.usage, cost: response.cost } : { type: "usage", usage: response.usage };
  yield { type: "finish", finish: response.finish, ...(response.alignment ? { alignment: response.alignment } : {}) };
}
