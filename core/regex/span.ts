/** A covered span of text, `[start, end)` in UTF-16 code units. */
export interface Span {
  start: number;
  end: number;
}

/** Unions `[start, end)` into ordered, merged spans (ends only grow; a start may reach back over earlier spans). */
export function addSpan(spans: Span[], start: number, end: number): void {
  while (spans.length > 0 && spans[spans.length - 1]!.end >= start) {
    const last = spans.pop()!;
    if (last.start < start) start = last.start;
    if (last.end > end) end = last.end;
  }
  spans.push({ start, end });
}
