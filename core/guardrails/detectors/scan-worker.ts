/**
 * Entry of a built-in scan Bun Worker: runs the built-in detectors on the texts of one request (worker-scans.ts), with
 * the same code the gateway thread would run, so the findings are the same; only the event loop is spared. A text
 * that makes a detector slow stalls only this thread; the pool stops it at its deadline.
 *
 * Built, this file must be an entrypoint of its own (package.json `start` and `build:binary`).
 */
import { BUILTIN_DETECTORS } from "./builtins.ts";
import { textsOf, type BuiltinScanAnswer, type BuiltinScanJob } from "./worker-protocol.ts";

declare const self: Worker;

function scan(job: BuiltinScanJob): BuiltinScanAnswer {
  const texts = textsOf(job);
  const out: number[] = [];
  const patterns = new Map<string, number>();
  for (let p = 0; p < job.pairs.length / 2; p++) {
    const detector = BUILTIN_DETECTORS.get(job.slugs[job.pairs[2 * p + 1]!]!)!;
    for (const finding of detector.find(texts[job.pairs[2 * p]!]!)) {
      let pattern = patterns.get(finding.pattern);
      if (pattern === undefined) patterns.set(finding.pattern, (pattern = patterns.size));
      out.push(p, finding.start, finding.end, pattern);
    }
  }
  return { ok: true, findings: Int32Array.from(out), patterns: [...patterns.keys()] };
}

self.onmessage = (event: MessageEvent<BuiltinScanJob & { id: number }>) => {
  let answer: BuiltinScanAnswer;
  try {
    answer = scan(event.data);
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage({ type: "result", id: event.data.id, ...answer }, answer.ok ? [answer.findings.buffer] : []);
};

self.postMessage({ type: "ready" });
