/**
 * `<think>…</think>` written inline in the answer (option `think_tags`): the blocks become reasoning parts and the
 * rest stays text, in the order the model wrote them. Streamed text is split as it comes, a tag cut between two
 * deltas included; the blank lines a model puts after `</think>` are dropped, as servers with a reasoning parser do.
 */
import type { Part, StreamEvent } from "../../core/sdk/index.ts";
import type { ReplyQuirk } from "./quirks.ts";

const OPEN = "<think>";
const CLOSE = "</think>";

/** A run of text on one side of a tag. */
export interface Piece {
  reasoning: boolean;
  text: string;
}

/** Splits text that arrives in pieces; `flush` returns what was held back at the end. */
export class ThinkSplitter {
  private inside = false;
  /** The end of the last piece, when it may be the start of a tag. */
  private held = "";
  /** Whitespace next to a tag is the model's layout, not its words: dropped at a block's edges. */
  private trimNext = false;
  /** Trailing whitespace of the reasoning so far, written only if more reasoning follows. */
  private reasoningSpace = "";

  push(text: string): Piece[] {
    const out: Piece[] = [];
    let rest = this.held + text;
    this.held = "";
    while (rest !== "") {
      const tag = this.inside ? CLOSE : OPEN;
      const at = rest.indexOf(tag);
      if (at >= 0) {
        this.emit(out, rest.slice(0, at));
        this.inside = !this.inside;
        this.trimNext = true;
        this.reasoningSpace = "";
        rest = rest.slice(at + tag.length);
        continue;
      }
      const keep = partialTagAtEnd(rest, tag);
      this.emit(out, rest.slice(0, rest.length - keep));
      this.held = rest.slice(rest.length - keep);
      break;
    }
    return out;
  }

  flush(): Piece[] {
    const out: Piece[] = [];
    this.emit(out, this.held);
    this.held = "";
    return out;
  }

  private emit(out: Piece[], text: string): void {
    let piece = text;
    if (this.trimNext) {
      piece = piece.replace(/^\s+/, "");
      if (piece !== "") this.trimNext = false;
    }
    if (piece === "") return;
    if (this.inside) {
      const body = piece.trimEnd();
      const space = piece.slice(body.length);
      if (body === "") {
        this.reasoningSpace += space;
        return;
      }
      piece = this.reasoningSpace + body;
      this.reasoningSpace = space;
    }
    const last = out.at(-1);
    if (last !== undefined && last.reasoning === this.inside) last.text += piece;
    else out.push({ reasoning: this.inside, text: piece });
  }
}

/** How many characters at the end of `text` could begin `tag` (held until the next piece decides). */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

/** A whole reply's text parts with their `<think>` blocks as reasoning parts, in place. */
export function splitThinkParts(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    if (part.type !== "text" || !part.text.includes(OPEN)) {
      out.push(part);
      continue;
    }
    const splitter = new ThinkSplitter();
    const pieces = [...splitter.push(part.text), ...splitter.flush()];
    pieces.forEach((piece, i) => {
      if (piece.reasoning) out.push({ type: "reasoning", text: piece.text });
      else if (i === pieces.findLastIndex((p) => !p.reasoning) && part.annotations !== undefined) out.push({ type: "text", text: piece.text, annotations: part.annotations });
      else out.push({ type: "text", text: piece.text });
    });
  }
  return out;
}

/** The reply quirk of option `think_tags`. */
export function thinkTagsReply(): ReplyQuirk {
  return {
    response(response) {
      response.parts = splitThinkParts(response.parts);
    },
    events: splitThinkEvents,
  };
}

/**
 * Text events → reasoning and text events. A text part's pieces become blocks of their own (one open at a time, as
 * the canonical stream requires): its first text block keeps the part's id, later ones and the reasoning blocks get
 * derived ids.
 */
export async function* splitThinkEvents(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent, void, undefined> {
  let splitter: ThinkSplitter | undefined;
  let part = "";
  let open: { id: string; reasoning: boolean } | undefined;
  let blocks = 0;
  const write = function* (pieces: Piece[]): Generator<StreamEvent> {
    for (const piece of pieces) {
      if (open?.reasoning !== piece.reasoning) {
        if (open !== undefined) yield close(open);
        const id = blocks === 0 && !piece.reasoning ? part : `${part}_${piece.reasoning ? "think" : "text"}_${blocks}`;
        blocks++;
        open = { id, reasoning: piece.reasoning };
        yield piece.reasoning ? { type: "reasoning-start", id } : { type: "text-start", id };
      }
      yield piece.reasoning ? { type: "reasoning-delta", id: open.id, delta: piece.text } : { type: "text-delta", id: open.id, delta: piece.text };
    }
  };
  for await (const event of events) {
    switch (event.type) {
      case "text-start":
        splitter = new ThinkSplitter();
        part = event.id;
        blocks = 0;
        break;
      case "text-delta":
        if (splitter === undefined) yield event;
        else yield* write(splitter.push(event.delta));
        break;
      case "text-end": {
        if (splitter === undefined) {
          yield event;
          break;
        }
        yield* write(splitter.flush());
        if (open !== undefined) {
          const end = close(open);
          // The part's annotations belong to its text.
          yield end.type === "text-end" && event.annotations !== undefined ? { ...end, annotations: event.annotations } : end;
        }
        splitter = undefined;
        open = undefined;
        break;
      }
      default:
        yield event;
    }
  }
}

function close(block: { id: string; reasoning: boolean }): StreamEvent {
  return block.reasoning ? { type: "reasoning-end", id: block.id } : { type: "text-end", id: block.id };
}
