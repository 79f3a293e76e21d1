/**
 * Redaction: each finding replaced by its typed placeholder (`[EMAIL]`, `[SECRET:aws_access_key_id]`,
 * `[REDACTED]`), overlapping findings merged into one (the earliest names it), before the upstream sees the text.
 */
import type { Hit } from "./scan.ts";
import type { TextSlot } from "./request-texts.ts";
import type { Detector, Finding } from "./detectors/types.ts";

export function placeholderOf(detector: Detector, finding: Finding): string {
  return detector.placeholder ? detector.placeholder(finding) : `[${detector.label}]`;
}

/** `text` with the spans replaced; spans may overlap and come in any order. */
export function redactText(text: string, spans: ReadonlyArray<{ start: number; end: number; placeholder: string }>): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i]!;
    let end = first.end;
    i++;
    while (i < sorted.length && sorted[i]!.start < end) end = Math.max(end, sorted[i++]!.end);
    out += text.slice(at, first.start) + first.placeholder;
    at = end;
  }
  return out + text.slice(at);
}

/** Applies every redaction to its slot (slots rewrite their part; JSON arguments are re-serialised). */
export function applyRedactions(hits: readonly Hit[]): void {
  const bySlot = new Map<TextSlot, Array<{ start: number; end: number; placeholder: string }>>();
  for (const { slot, finding, filter } of hits) {
    let spans = bySlot.get(slot);
    if (!spans) bySlot.set(slot, (spans = []));
    spans.push({ start: finding.start, end: finding.end, placeholder: placeholderOf(filter.detector, finding) });
  }
  for (const [slot, spans] of bySlot) {
    slot.text = redactText(slot.text, spans);
    slot.set(slot.text);
  }
}
