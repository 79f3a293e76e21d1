/**
 * Runs a policy's content filters over pieces of text and decides: block beats redact beats flag,
 * across every guardrail that applies. Each detector runs once per text however many guardrails use it.
 *
 * A check never holds the event loop for long (README "Caps on heavy work"): operators' patterns are read in slices
 * (`findSliced`), built-ins on small texts one detector and text at a time with the loop given back between, and
 * built-ins on big texts in a worker thread (detectors/worker-scans.ts). Each gives the findings the one plain pass
 * would, in the same order, so the verdict is the same.
 */
import { GatewayError } from "../errors.ts";
import { Slices } from "../model/slices.ts";
import { BUILTIN_DETECTORS } from "./detectors/builtins.ts";
import type { Detector, Finding } from "./detectors/types.ts";
import { findInWorker, INLINE_CHARS, WorkerScanStopped, type BuiltinRead } from "./detectors/worker-scans.ts";
import type { Filter } from "./policy.ts";
import type { TextSlot } from "./request-texts.ts";

export type Side = "input" | "output";

/** One finding of one filter in one piece of text. */
export interface Hit {
  filter: Filter;
  finding: Finding;
  slot: TextSlot;
}

export interface Verdict {
  blocks: Hit[];
  redactions: Hit[];
  flags: Hit[];
}

/** The filters that read this side; on input, prompt-injection's `user_only` scope leaves other roles out. */
export function filtersFor(filters: readonly Filter[], side: Side): Filter[] {
  return filters.filter((f) => (side === "input" ? f.input : f.output));
}

/**
 * Characters the built-ins may read between two looks at the clock: at the slowest built-in's ~35 ns a character
 * (detectors/injection/triggers.ts), well under a millisecond, a tenth of a slice (model/slices.ts).
 */
const DUE_CHECK_CHARS = 16 * 1024;

/** Findings of each detector in each slot it reads (`undefined` where it does not). */
type Found = Map<Detector, Array<Finding[] | undefined>>;

/** Hits in filter order (the policy's: guardrail by guardrail), then text order; each detector runs once per text. */
export async function scanSlots(slots: readonly TextSlot[], filters: readonly Filter[], side: Side, slices = new Slices()): Promise<Verdict> {
  const verdict: Verdict = { blocks: [], redactions: [], flags: [] };
  if (filters.length === 0) return verdict;
  const reads = (filter: Filter, slot: TextSlot) => slot.text.length > 0 && !(side === "input" && filter.scanScope === "user_only" && slot.role !== "user");
  const found = await findAll(slots, filters, reads, side, slices);
  for (const filter of filters) {
    const perSlot = found.get(filter.detector)!;
    const bucket = filter.action === "block" ? verdict.blocks : filter.action === "redact" ? verdict.redactions : verdict.flags;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      if (!reads(filter, slot)) continue;
      for (const finding of perSlot[i]!) bucket.push({ filter, finding, slot });
    }
  }
  return verdict;
}

/**
 * Runs every detector on every slot one of its filters reads, in the order a plain pass would (filter by filter, slot
 * by slot), so the first pattern past the scan budget is the one that would have been.
 */
async function findAll(slots: readonly TextSlot[], filters: readonly Filter[], reads: (filter: Filter, slot: TextSlot) => boolean, side: Side, slices: Slices): Promise<Found> {
  const found: Found = new Map();
  const inWorker: Array<{ detector: Detector; slot: number; filter: Filter }> = [];
  const onLoop: Array<{ detector: Detector; slot: number; filter: Filter }> = [];
  /** Characters of the distinct slots built-ins read (whether they go to the worker). */
  let chars = 0;
  const counted: boolean[] = [];
  for (const filter of filters) {
    let perSlot = found.get(filter.detector);
    if (!perSlot) found.set(filter.detector, (perSlot = new Array<Finding[] | undefined>(slots.length)));
    const builtin = !filter.detector.findSliced && BUILTIN_DETECTORS.get(filter.detector.slug) === filter.detector;
    for (let i = 0; i < slots.length; i++) {
      if (!reads(filter, slots[i]!) || perSlot[i]) continue;
      perSlot[i] = []; // claimed: filled below
      (builtin ? inWorker : onLoop).push({ detector: filter.detector, slot: i, filter });
      if (builtin && !counted[i]) (counted[i] = true), (chars += slots[i]!.text.length);
    }
  }
  // Built-ins read big texts in a worker, while the patterns run here.
  let fromWorker: Promise<Finding[][]> | undefined;
  if (chars > INLINE_CHARS) {
    const texts = [...new Set(inWorker.map((r) => r.slot))];
    const builtinReads: BuiltinRead[] = inWorker.map((r) => ({ slug: r.detector.slug, text: texts.indexOf(r.slot) }));
    fromWorker = findInWorker(
      texts.map((i) => slots[i]!.text),
      builtinReads,
      slices,
    ).catch((error: unknown) => {
      throw error instanceof WorkerScanStopped ? workerScanError(inWorker[0]!.filter, error, side) : error;
    });
    // Awaited below, or left behind when a pattern fails the check first: never an unhandled rejection.
    fromWorker.catch(() => undefined);
  } else onLoop.push(...inWorker);
  // The clock is read after every sliced scan, and after plain ones only once they have read DUE_CHECK_CHARS since
  // the last reading: a few short texts through every built-in take microseconds, far below a slice.
  let unchecked = 0;
  for (const { detector, slot } of onLoop) {
    const text = slots[slot]!.text;
    found.get(detector)![slot] = detector.findSliced ? await detector.findSliced(text, slices) : detector.find(text);
    unchecked += detector.findSliced ? DUE_CHECK_CHARS : text.length;
    if (unchecked < DUE_CHECK_CHARS) continue;
    unchecked = 0;
    if (slices.due()) await slices.next();
  }
  if (fromWorker) {
    const results = await fromWorker;
    inWorker.forEach(({ detector, slot }, i) => (found.get(detector)![slot] = results[i]!));
  }
  return found;
}

/** A big text the built-ins could not read within the worker's bounds is not let through (as past the scan budget). */
function workerScanError(filter: Filter, stopped: WorkerScanStopped, side: Side): GatewayError {
  const { guardrail } = filter;
  const subject = side === "input" ? "Request" : "Response";
  const what = stopped.bound === "time" ? `within ${stopped.limit / 1_000} s` : `within ${Math.round(stopped.limit / 1024 / 1024)} MB of memory`;
  return new GatewayError("permission_denied", `${subject} blocked by guardrail "${guardrail.name}": its built-in detectors could not check it ${what}`, {
    status: 403,
    metadata: {
      guardrail_id: guardrail.id,
      guardrail_name: guardrail.name,
      guardrail_scope: guardrail.scope,
      side,
      ...(stopped.bound === "time" ? { builtin_scan_timeout_ms: stopped.limit } : { builtin_scan_memory_bytes: stopped.limit }),
    },
  });
}
