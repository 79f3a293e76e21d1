/**
 * Output filters on a streamed answer (README "Guardrails"). Text is checked as it arrives, part by part (text,
 * reasoning, refusal, tool-call arguments, spoken audio's transcript), and gets the verdict the whole answer would
 * get, however it is chunked:
 * - Text a `block` or `redact` finding could still cover is held back until it is known clean: up to where a finding
 *   may still begin (each detector's `holdFrom`: the last token or few for the built-ins, the earliest match in
 *   progress for an operator's pattern). A finding is acted on once it is final (it begins before that point, or
 *   the part ended), so a match confirmed only by the next chunk (a `\b` after the word) is caught before it goes out.
 * - `block`: a final finding ends the stream with the format's in-band error event (403 `permission_denied`), with
 *   its pipeline entries, whether or not its text was released.
 * - `redact`: released text has final findings replaced by their placeholders; a finding goes out whole, never cut
 *   by what is still held. Tool-call arguments are not rewritten (a placeholder could break their JSON), nor is a
 *   transcript (the audio would still say it): there `redact` records, like `flag`, and only `block` holds them
 *   (spoken pieces wait while their transcript is held).
 * - `flag`: recorded in the pipeline entries (and so in the generation record) once final, nothing else.
 * Without a filter that can act on a part's text nothing of it is held, so the first token is not delayed.
 */
import type { GatewayError } from "../errors.ts";
import type { EventStream, StreamEvent } from "../model/events.ts";
import type { PipelineEntry } from "../pipeline/context.ts";
import type { DetectorStream, Detector, Finding } from "./detectors/types.ts";
import type { Filter } from "./policy.ts";
import { placeholderOf, redactText } from "./redact.ts";
import { blockError, pipelineEntries } from "./report.ts";
import type { TextSlot } from "./request-texts.ts";
import type { Hit, Verdict } from "./scan.ts";

type Kind = "text" | "reasoning" | "refusal" | "tool-call" | "audio";
type DeltaEvent = Extract<StreamEvent, { type: "text-delta" | "reasoning-delta" | "refusal-delta" | "tool-call-delta" }>;
type AudioEvent = Extract<StreamEvent, { type: "audio" }>;
/** A redact filter's final finding (by the filter's index) in text that is rewritten. */
type Redaction = { index: number; finding: Finding };

const NO_SLOT: TextSlot = { role: "assistant", text: "", set: () => undefined };

/** One streamed part's text and what has been done with it. */
class PartScan {
  text = "";
  /** Offset of the text already passed on. */
  released = 0;
  /** The last piece appended. */
  delta = "";
  /** The last delta event, as the template of the ones released (id, kind, and so on). */
  template: DeltaEvent | undefined;
  logprobs: unknown[] = [];
  /**
   * Per detector: where its next window scan starts: its `holdFrom` after the last scan, or, while a finding there
   * is not final, the start of the window that found it (so the next scan sees the finding's context again).
   */
  readonly windows = new Map<Detector, number>();
  readonly runs = new Map<Detector, DetectorStream>();
  /** Findings already acted on (`filter index:start:pattern`). */
  readonly seen = new Set<string>();
  /** Final redactions not released yet, by key. */
  readonly pending = new Map<string, Redaction>();
  /** Spoken pieces waiting until their transcript is released, with the transcript's length after each. */
  readonly waiting: Array<{ event: AudioEvent; upTo: number }> = [];
  /**
   * @param holding detectors of the filters that act on this part (block; redact where it rewrites): text they may
   *   still find something in is held back.
   * @param rewrites whether `redact` rewrites this part (text, reasoning, refusal) rather than recording.
   */
  constructor(
    readonly holding: ReadonlySet<Detector>,
    readonly rewrites: boolean,
  ) {}
}

export interface OutputGuard {
  /** Pipeline entries made so far are pushed here (before the events that end the stream). */
  pipeline: PipelineEntry[];
  /**
   * Called with the 403 of a block once the source stream is closed (its generation record is written by then), so
   * the record can say 403 as a blocked whole answer's does.
   */
  blocked?(error: GatewayError): void;
}

export function guardStream(source: EventStream, filters: readonly Filter[], guard: OutputGuard): EventStream {
  return new StreamGuard(filters, guard).run(source);
}

class StreamGuard {
  private readonly parts = new Map<string, PartScan>();
  private readonly verdict: Verdict = { blocks: [], redactions: [], flags: [] };
  private reported: Verdict = { blocks: [], redactions: [], flags: [] };
  /** Detectors that hold back rewritable text (block and redact filters), and other parts (block filters). */
  private readonly holdsText: ReadonlySet<Detector>;
  private readonly holdsOther: ReadonlySet<Detector>;

  constructor(
    private readonly filters: readonly Filter[],
    private readonly guard: OutputGuard,
  ) {
    this.holdsText = new Set(filters.filter((f) => f.action === "block" || f.action === "redact").map((f) => f.detector));
    this.holdsOther = new Set(filters.filter((f) => f.action === "block").map((f) => f.detector));
  }

  /** The 403 that ended the stream, if one did. */
  private block: GatewayError | undefined;

  async *run(source: EventStream): EventStream {
    try {
      yield* this.relay(source);
    } finally {
      // After the source was closed (leaving `relay` closes it): its generation record exists now.
      if (this.block) this.guard.blocked?.(this.block);
    }
  }

  private async *relay(source: EventStream): EventStream {
    for await (const event of source) {
      switch (event.type) {
        case "text-delta":
        case "reasoning-delta":
        case "refusal-delta":
        case "tool-call-delta": {
          const part = this.partOf(event.id, kindOf(event));
          const out = this.append(part, event.delta, event);
          if (this.verdict.blocks.length > 0) {
            yield this.blocked();
            return;
          }
          if (out) yield out;
          break;
        }
        case "audio": {
          // Spoken text is checked like tool-call arguments: never rewritten (the audio would still say it), so
          // `redact` is recorded, and a piece waits while a `block` filter holds its transcript back.
          const part = this.partOf(`audio:${event.id}`, "audio");
          if (event.transcript) this.append(part, event.transcript, undefined);
          if (this.verdict.blocks.length > 0) {
            yield this.blocked();
            return;
          }
          if (part.waiting.length === 0 && part.released === part.text.length) {
            yield event;
            break;
          }
          part.waiting.push({ event, upTo: part.text.length });
          yield* spoken(part);
          break;
        }
        case "text-end":
        case "reasoning-end":
        case "tool-call-end": {
          const part = this.parts.get(event.id);
          if (part) {
            const rest = this.flush(part);
            if (this.verdict.blocks.length > 0) {
              yield this.blocked();
              return;
            }
            if (rest) yield rest;
            this.parts.delete(event.id);
          }
          yield event;
          break;
        }
        case "usage":
          // Not the end of any part (a first usage comes before the text): entries so far go out with it.
          this.report();
          yield event;
          break;
        case "finish":
        case "error": {
          if (yield* this.flushAll()) return;
          yield event;
          if (event.type === "error") return;
          break;
        }
        default:
          yield event;
      }
    }
    yield* this.flushAll();
  }

  /** Ends every open part: what each held back goes out and the verdict is reported, unless a block ends the stream (true). */
  private *flushAll(): Generator<StreamEvent, boolean> {
    for (const [id, part] of this.parts) {
      const rest = this.flush(part);
      if (this.verdict.blocks.length > 0) {
        yield this.blocked();
        return true;
      }
      if (rest) yield rest;
      yield* spoken(part);
      this.parts.delete(id);
    }
    this.report();
    return false;
  }

  private partOf(id: string, kind: Kind): PartScan {
    let part = this.parts.get(id);
    if (!part) {
      const rewrites = kind === "text" || kind === "reasoning" || kind === "refusal";
      this.parts.set(id, (part = new PartScan(rewrites ? this.holdsText : this.holdsOther, rewrites)));
    }
    return part;
  }

  /** Scans the grown text; returns what may be passed on now (the delta itself when nothing is held back). */
  private append(part: PartScan, delta: string, event: DeltaEvent | undefined): DeltaEvent | undefined {
    if (event) part.template = event;
    part.delta = delta;
    part.text += delta;
    if (part.holding.size === 0) {
      // Nothing can act on this text: it goes out as it came, and flags are recorded as they become final.
      this.scan(part, false);
      part.released = part.text.length;
      return event;
    }
    if (event?.type === "text-delta" && event.logprobs) part.logprobs.push(...event.logprobs);
    return this.release(part, this.scan(part, false), false);
  }

  /** The end of a part: everything left is final. */
  private flush(part: PartScan): DeltaEvent | undefined {
    for (const run of part.runs.values()) run.finish();
    this.scan(part, true);
    if (part.released >= part.text.length) return undefined;
    return this.release(part, part.text.length, true);
  }

  /**
   * Runs every detector on the new text (a window from where a finding may begin, or the resumable run of an
   * operator's pattern) and acts on the findings that are final: blocks and flags are recorded (redactions too where
   * the part is not rewritten), redactions of rewritten text wait in `pending` until released. Returns where the
   * text held for the holding detectors begins.
   */
  private scan(part: PartScan, final: boolean): number {
    const found = new Map<Detector, { findings: readonly Finding[]; hold: number }>();
    let frontier = part.text.length;
    this.filters.forEach((filter, index) => {
      let result = found.get(filter.detector);
      if (!result) found.set(filter.detector, (result = this.findings(part, filter.detector, final)));
      if (part.holding.has(filter.detector)) frontier = Math.min(frontier, result.hold);
      for (const finding of result.findings) {
        // Not final yet: the match may still grow, or vanish, with the text to come.
        if (finding.start >= result.hold) continue;
        const key = `${index}:${finding.start}:${finding.pattern}`;
        if (part.seen.has(key)) continue;
        part.seen.add(key);
        const hit: Hit = { filter, finding, slot: NO_SLOT };
        if (filter.action === "block") this.verdict.blocks.push(hit);
        else if (filter.action === "redact" && part.rewrites) {
          part.pending.set(key, { index, finding });
          this.verdict.redactions.push(hit);
        } else this.verdict.flags.push(hit); // a flag, or a redact where the part is not rewritten (recorded)
      }
    });
    return frontier;
  }

  /**
   * The detector's findings in the part's new text, and where a finding may still begin (`hold`; the end of the
   * text once final): findings that begin there or later are not final.
   */
  private findings(part: PartScan, detector: Detector, final: boolean): { findings: readonly Finding[]; hold: number } {
    if (detector.stream) {
      let run = part.runs.get(detector);
      if (!run) {
        part.runs.set(detector, (run = detector.stream()));
        run.feed(part.text);
      } else if (!final) run.feed(part.delta);
      return { findings: run.findings, hold: final ? part.text.length : holdFrom(detector, part.text, run) };
    }
    // From where a finding may begin, one character earlier for the built-ins' look-behind context.
    const start = part.windows.get(detector) ?? 0;
    const from = Math.max(0, start - 1);
    const hold = final ? part.text.length : holdFrom(detector, part.text, undefined);
    const findings = detector.find(from === 0 ? part.text : part.text.slice(from));
    let provisional = false;
    for (const f of findings) {
      f.start += from;
      f.end += from;
      if (f.start >= hold) provisional = true;
    }
    part.windows.set(detector, provisional ? start : hold);
    return { findings, hold };
  }

  /**
   * Passes on the text before `frontier` (all of it when `final`) with the final redactions in it replaced: a
   * redaction that reaches past the frontier keeps its text held (another finding may still join it), and one that
   * began before the text released (never expected) replaces what is left of it.
   */
  private release(part: PartScan, frontier: number, final: boolean): DeltaEvent | undefined {
    let until = frontier;
    if (!final) {
      for (let moved = true; moved; ) {
        moved = false;
        for (const { finding } of part.pending.values()) {
          if (finding.start < until && finding.end > until) {
            until = Math.max(part.released, finding.start);
            moved = true;
          }
        }
      }
    }
    if (until <= part.released) return undefined;
    const spans: Array<{ start: number; end: number; placeholder: string }> = [];
    for (const [key, { index, finding }] of part.pending) {
      if (finding.start >= until) continue;
      part.pending.delete(key);
      if (finding.end <= part.released) continue;
      spans.push({ start: Math.max(finding.start, part.released) - part.released, end: Math.min(finding.end, until) - part.released, placeholder: placeholderOf(this.filters[index]!.detector, finding) });
    }
    const template = part.template;
    const passThrough = spans.length === 0 && until === part.text.length && part.released === part.text.length - part.delta.length;
    const delta = passThrough ? part.delta : redactText(part.text.slice(part.released, until), spans);
    part.released = until;
    if (!template) return undefined; // spoken text: its pieces go out as `spoken` releases them
    if (passThrough && template.delta === delta) {
      part.logprobs = [];
      return template;
    }
    const out: DeltaEvent = { ...template, delta };
    if (out.type === "text-delta") {
      if (part.logprobs.length > 0) out.logprobs = part.logprobs;
      else delete out.logprobs;
      part.logprobs = [];
    }
    return out;
  }

  /** The in-band 403 that ends the stream, with the entries of everything found. */
  private blocked(): StreamEvent {
    this.report();
    this.block = blockError(this.verdict.blocks, "output");
    return { type: "error", error: this.block };
  }

  /** Pushes entries for findings not reported yet (before the events whose encoding reads `service_metadata`). */
  private report(): void {
    const fresh: Verdict = {
      blocks: this.verdict.blocks.slice(this.reported.blocks.length),
      redactions: this.verdict.redactions.slice(this.reported.redactions.length),
      flags: this.verdict.flags.slice(this.reported.flags.length),
    };
    if (fresh.blocks.length + fresh.redactions.length + fresh.flags.length === 0) return;
    this.guard.pipeline.push(...pipelineEntries(fresh, "output"));
    this.reported = { blocks: [...this.verdict.blocks], redactions: [...this.verdict.redactions], flags: [...this.verdict.flags] };
  }
}

function kindOf(event: DeltaEvent): Kind {
  return event.type === "text-delta" ? "text" : event.type === "reasoning-delta" ? "reasoning" : event.type === "refusal-delta" ? "refusal" : "tool-call";
}

/** The spoken pieces whose transcript has been released, in order. */
function* spoken(part: PartScan): Generator<StreamEvent> {
  let n = 0;
  while (n < part.waiting.length && part.waiting[n]!.upTo <= part.released) yield part.waiting[n++]!.event;
  if (n > 0) part.waiting.splice(0, n);
}

/** Where a finding of `detector` may still begin in the growing `text`. */
function holdFrom(detector: Detector, text: string, run: DetectorStream | undefined): number {
  if (run) {
    // The last span may still grow while a match in progress reaches back into it.
    const live = run.liveFrom();
    const last = run.findings[run.findings.length - 1];
    const from = last && last.end >= live ? Math.min(live, last.start) : live;
    return Math.min(text.length, from);
  }
  if (detector.holdFrom) return detector.holdFrom(text);
  return Math.max(0, text.length - detector.maxSpan);
}
