/**
 * Messages between the gateway thread and a built-in scan worker (scan-worker.ts), as typed arrays moved rather
 * than copied: the texts as UTF-16 code units (exactly the strings the gateway holds, lone surrogates included, so
 * offsets and findings are the same on both sides), the findings as integers.
 */

export interface BuiltinScanJob {
  /** Every text, one after the other. */
  units: Uint16Array<ArrayBuffer>;
  /** Text `i` is `units[bounds[i], bounds[i + 1])`. */
  bounds: Int32Array<ArrayBuffer>;
  /** Pairs (text index, slug index): each built-in to run on each text. */
  pairs: Int32Array<ArrayBuffer>;
  slugs: string[];
}

export type BuiltinScanAnswer =
  /** Quadruples (pair index, start, end, index in `patterns`), pair by pair, each pair's in its detector's order. */
  | { ok: true; findings: Int32Array<ArrayBuffer>; patterns: string[] }
  /** A detector threw (a fault of ours): what it said, for the log. */
  | { ok: false; message: string };

/** The strings held in `units`, as the gateway had them (code unit by code unit). */
export function textsOf(job: Pick<BuiltinScanJob, "units" | "bounds">): string[] {
  const texts: string[] = [];
  for (let t = 0; t + 1 < job.bounds.length; t++) {
    const parts: string[] = [];
    for (let at = job.bounds[t]!, end = job.bounds[t + 1]!; at < end; at += 8_192) {
      parts.push(String.fromCharCode.apply(null, job.units.subarray(at, Math.min(end, at + 8_192)) as unknown as number[]));
    }
    texts.push(parts.join(""));
  }
  return texts;
}
