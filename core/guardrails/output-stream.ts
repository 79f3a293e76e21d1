/**
 * Output filters on a streamed answer (issue 15 item 3). Text is checked as it arrives, part by part (text,
 * reasoning, refusal, tool-call arguments, spoken audio's transcript), each delta scanned before it is passed on:
 * - `block`: the first finding ends the stream with the format's in-band error event (403 `permission_denied`);
 *   nothing is held back for it, so what came before the finding's last delta has been sent.
 * - `redact`: text is held back only as far as a finding may still begin (each detector's `holdFrom`: the last
 *   token or few for the built-ins, the earliest live match for an operator's pattern), released with findings
 *   replaced by their placeholders; the rest is released when the part, or the answer, ends. Tool-call arguments
 *   are not rewritten mid-stream (a placeholder could break their JSON), nor is a transcript (the audio would
 *   still say it): there `redact` records, like `flag`.
 * - `flag`: recorded in the pipeline entries (and so in the generation record), nothing else.
 * Without a `redact` filter no text is ever held, so the first token is not delayed.
 */
import type { EventStream, StreamEvent } from "../model/events.ts";
import type { PipelineEntry } from "../pipeline/context.ts";
import type { DetectorStream, Detector, Finding } from "./detectors/types.ts";
import type { Filter } from "./policy.ts";
import { placeholderOf, redactText } from "./redact.ts";
import { blockError, pipelineEntries } from "./report.ts";
import type { TextSlot } from "./request-texts.ts";
import type { Hit, Verdict } from "./scan.ts";

type Kind = "text" | "reasoning" | "refusal" | "tool-call";
type DeltaEvent = Extract<StreamEvent, { type: "text-delta" | "reasoning-delta" | "refusal-delta" | "tool-call-delta" }>;

const NO_SLOT: TextSlot = { role: "assistant", text: "", set: () => undefined };

/** One streamed part's text and what has been done with it. */
class PartScan {
  text = "";
  /** Offset of the text already passed on. */
  released = 0;
  /** The last delta event, as the template of the ones released (id, kind, and so on). */
  template: DeltaEvent | undefined;
  logprobs: unknown[] = [];
  /** Per detector: where its next window scan starts (its `holdFrom` before the latest delta). */
  readonly windows = new Map<Detector, number>();
  readonly runs = new Map<Detector, DetectorStream>();
  /** Findings already reported (`filter index:start`). */
  readonly seen = new Set<string>();
  constructor(readonly kind: Kind) {}
}

export interface OutputGuard {
  /** Pipeline entries made so far are pushed here (before the events that end the stream). */
  pipeline: PipelineEntry[];
}

export function guardStream(source: EventStream, filters: readonly Filter[], guard: OutputGuard): EventStream {
  return new StreamGuard(filters, guard).run(source);
}

class StreamGuard {
  private readonly parts = new Map<string, PartScan>();
  private readonly verdict: Verdict = { blocks: [], redactions: [], flags: [] };
  private reported: Verdict = { blocks: [], redactions: [], flags: [] };
  private readonly redacting: boolean;

  constructor(
    private readonly filters: readonly Filter[],
    private readonly guard: OutputGuard,
  ) {
    this.redacting = filters.some((f) => f.action === "redact");
  }

  async *run(source: EventStream): EventStream {
    for await (const event of source) {
      switch (event.type) {
        case "text-delta":
        case "reasoning-delta":
        case "refusal-delta":
        case "tool-call-delta": {
          const part = this.partOf(event);
          const out = this.append(part, event);
          if (this.verdict.blocks.length > 0) {
            yield this.blocked();
            return;
          }
          if (out) yield out;
          break;
        }
        case "audio": {
          // Spoken text is checked like tool-call arguments: as it arrives, never rewritten (the audio would still
          // say it), so `block` ends the stream before the piece goes out and `redact` is recorded.
          if (event.transcript) {
            const spoken: DeltaEvent = { type: "tool-call-delta", id: `audio:${event.id}`, delta: event.transcript };
            this.append(this.partOf(spoken), spoken);
            if (this.verdict.blocks.length > 0) {
              yield this.blocked();
              return;
            }
          }
          yield event;
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
        case "finish":
        case "usage":
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
    for (const part of this.parts.values()) {
      const rest = this.flush(part);
      if (this.verdict.blocks.length > 0) {
        yield this.blocked();
        return true;
      }
      if (rest) yield rest;
    }
    this.report();
    return false;
  }

  private partOf(event: DeltaEvent): PartScan {
    let part = this.parts.get(event.id);
    if (!part) {
      const kind: Kind = event.type === "text-delta" ? "text" : event.type === "reasoning-delta" ? "reasoning" : event.type === "refusal-delta" ? "refusal" : "tool-call";
      this.parts.set(event.id, (part = new PartScan(kind)));
    }
    return part;
  }

  /** Scans the grown text; returns what may be passed on now (the delta itself when nothing is held back). */
  private append(part: PartScan, event: DeltaEvent): DeltaEvent | undefined {
    part.template = event;
    part.text += event.delta;
    if (event.type === "text-delta" && event.logprobs) part.logprobs.push(...event.logprobs);
    const current = this.scan(part, false);
    if (!this.holds(part)) {
      part.released = part.text.length;
      part.logprobs = [];
      return event;
    }
    return this.release(part, current, false);
  }

  /** The end of a part: everything left is final. */
  private flush(part: PartScan): DeltaEvent | undefined {
    for (const run of part.runs.values()) run.finish();
    const current = this.scan(part, true);
    if (!this.holds(part) || part.released >= part.text.length) return undefined;
    return this.release(part, current, true);
  }

  private holds(part: PartScan): boolean {
    return this.redacting && part.kind !== "tool-call";
  }

  /**
   * Runs every detector on the new text (a window from where a finding may begin, or the resumable run of an
   * operator's pattern), reports new block and flag findings, and returns the current redact findings by filter.
   */
  private scan(part: PartScan, final: boolean): Array<{ filter: Filter; finding: Finding }> {
    const found = new Map<Detector, Finding[]>();
    const redacts: Array<{ filter: Filter; finding: Finding }> = [];
    this.filters.forEach((filter, index) => {
      let findings = found.get(filter.detector);
      if (!findings) found.set(filter.detector, (findings = this.findings(part, filter.detector, final)));
      for (const finding of findings) {
        if (filter.action === "redact" && this.holds(part)) {
          redacts.push({ filter, finding });
          continue;
        }
        const key = `${index}:${finding.start}`;
        if (part.seen.has(key)) continue;
        part.seen.add(key);
        const hit: Hit = { filter, finding, slot: NO_SLOT };
        if (filter.action === "block") this.verdict.blocks.push(hit);
        else this.verdict.flags.push(hit); // a flag, or a redact on tool-call arguments (recorded, not rewritten)
      }
    });
    return redacts;
  }

  private findings(part: PartScan, detector: Detector, final: boolean): Finding[] {
    if (detector.stream) {
      let run = part.runs.get(detector);
      if (!run) {
        part.runs.set(detector, (run = detector.stream()));
        run.feed(part.text);
      } else if (!final) run.feed(part.template!.delta);
      return run.findings.filter((f) => f.end > part.released);
    }
    // From where a finding may begin (or the text still held, whose findings are not final yet), one character
    // earlier for the built-ins' look-behind context.
    const from = Math.max(0, Math.min(part.windows.get(detector) ?? 0, part.released) - 1);
    const window = part.text.slice(from);
    part.windows.set(detector, holdFrom(detector, part.text, part.runs.get(detector)));
    return detector.find(window).map((f) => ({ ...f, start: f.start + from, end: f.end + from })).filter((f) => f.end > part.released);
  }

  /** Passes on the text no redact finding can still reach, with final findings replaced. */
  private release(part: PartScan, redacts: ReadonlyArray<{ filter: Filter; finding: Finding }>, final: boolean): DeltaEvent | undefined {
    let until = part.text.length;
    if (!final) {
      for (const filter of this.filters) {
        if (filter.action !== "redact") continue;
        until = Math.min(until, holdFrom(filter.detector, part.text, part.runs.get(filter.detector)));
      }
    }
    const spans: Array<{ start: number; end: number; placeholder: string }> = [];
    for (const { filter, finding } of redacts) {
      if (finding.start < part.released || finding.start >= until) continue;
      spans.push({ start: finding.start - part.released, end: finding.end - part.released, placeholder: placeholderOf(filter.detector, finding) });
      this.verdict.redactions.push({ filter, finding, slot: NO_SLOT });
    }
    for (const s of spans) until = Math.max(until, s.end + part.released);
    if (until <= part.released) return undefined;
    const delta = redactText(part.text.slice(part.released, until), spans);
    part.released = until;
    const template = part.template!;
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
    return { type: "error", error: blockError(this.verdict.blocks, "output") };
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
