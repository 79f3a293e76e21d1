/**
 * Counting on the request path without prom-client's per-call cost: its `inc` / `observe` hash the label object
 * (sorting its keys) on every call, child or not, which was most of the metrics' cost per request. Here a request's
 * increments and observations go into cells found by the label values (every call site passes a family's labels in
 * one fixed order): a tree of maps keyed by the label strings themselves, one level per label, so finding a cell
 * builds no key (the strings are the ones the request already holds, their hashes cached). Cells stay from one flush
 * to the next (label values come from closed sets), and reach prom-client in one pass when `/metrics` is rendered —
 * or earlier, once enough are pending, so an unscraped gateway holds a bounded amount.
 */
import type { Counter, Histogram } from "prom-client";

type Labels = Record<string, string>;

/** Pending observations (histograms) or cells with increments (counters) before a flush. */
const MAX_PENDING = 20_000;
/** Cells kept across flushes; past this many (labels that grew after all) the trees are dropped at the next flush. */
const MAX_CELLS = 20_000;

interface Cell {
  labels: Labels;
  /** Counters: the increment pending. */
  value: number;
  /** Histograms: the observations pending. */
  values: number[];
  pending: boolean;
  /** Histograms: the key of this cell's series in prom-client's map, once known. */
  series: string | undefined;
}

type Tree = Map<string, Tree | Cell>;

const TREE = Symbol("bound cells");
/** A metric's tree, of the generation it was made in (an older one is replaced). */
type WithTree = { [TREE]?: { generation: number; root: Tree } };

/** Cells with something pending, per metric. */
const pendingCounters: Array<[Counter<string>, Cell]> = [];
const pendingHistograms: Array<[Histogram<string>, Cell]> = [];
/** Bumped to drop every tree at once (when they grew too large). */
let generation = 0;
let cells = 0;
let pending = 0;

function cellOf(metric: WithTree, labels: Labels): Cell {
  let tree = metric[TREE];
  if (tree === undefined || tree.generation !== generation) metric[TREE] = tree = { generation, root: new Map() };
  let node = tree.root;
  let key = "";
  let first = true;
  for (const name in labels) {
    if (!first) {
      let next = node.get(key) as Tree | undefined;
      if (next === undefined) node.set(key, (next = new Map()));
      node = next;
    }
    first = false;
    key = labels[name]!;
  }
  let cell = node.get(key) as Cell | undefined;
  if (cell === undefined) {
    node.set(key, (cell = { labels, value: 0, values: [], pending: false, series: undefined }));
    cells++;
  }
  return cell;
}

export function incBy(counter: Counter<string>, labels: Labels, value = 1): void {
  const cell = cellOf(counter as WithTree, labels);
  cell.value += value;
  if (!cell.pending) {
    cell.pending = true;
    pendingCounters.push([counter, cell]);
    if (++pending >= MAX_PENDING) flushMetrics();
  }
}

export function observeBy(histogram: Histogram<string>, labels: Labels, value: number): void {
  const cell = cellOf(histogram as WithTree, labels);
  cell.values.push(value);
  if (!cell.pending) {
    cell.pending = true;
    pendingHistograms.push([histogram, cell]);
  }
  if (++pending >= MAX_PENDING) flushMetrics();
}

/** A prom-client histogram's series, as its `get()` reads them (lib/histogram.js, 15.x). */
interface Series {
  labels: Labels;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

type HistogramInside = { hashMap?: Record<string, Series>; upperBounds?: readonly number[] };

/**
 * A cell's observations into its prom-client series. prom-client hashes the labels (a key string built from them)
 * and checks them on every `observe`, ~0.5 µs each, one per request; here the first value goes through `observe`
 * (which checks the labels and makes the series), and the others are added to that series' buckets, sum and count
 * directly. Whenever the series is not found as expected (another prom-client, a reset) every value goes through
 * `observe`.
 */
function observeAll(histogram: Histogram<string>, cell: Cell): void {
  const values = cell.values;
  const inside = histogram as unknown as HistogramInside;
  let series = cell.series === undefined ? undefined : inside.hashMap?.[cell.series];
  let from = 0;
  if (series === undefined || series.labels !== cell.labels) {
    histogram.observe(cell.labels, values[0]!);
    from = 1;
    series = undefined;
    cell.series = undefined;
    for (const key in inside.hashMap ?? {}) {
      if (inside.hashMap![key]!.labels === cell.labels) {
        cell.series = key;
        series = inside.hashMap![key];
        break;
      }
    }
  }
  const bounds = inside.upperBounds;
  if (series === undefined || !Array.isArray(bounds) || typeof series.bucketValues !== "object" || typeof series.count !== "number") {
    for (let i = from; i < values.length; i++) histogram.observe(cell.labels, values[i]!);
    return;
  }
  for (let i = from; i < values.length; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    series.sum += value;
    series.count += 1;
    // The first bucket whose upper bound holds the value; above them all only +Inf (the count) has it.
    for (const bound of bounds) {
      if (value <= bound) {
        series.bucketValues[bound] = (series.bucketValues[bound] ?? 0) + 1;
        break;
      }
    }
  }
}

/** Hands everything pending to prom-client (before a scrape renders it). */
export function flushMetrics(): void {
  for (const [counter, cell] of pendingCounters) {
    counter.inc(cell.labels, cell.value);
    cell.value = 0;
    cell.pending = false;
  }
  for (const [histogram, cell] of pendingHistograms) {
    observeAll(histogram, cell);
    cell.values = [];
    cell.pending = false;
  }
  pendingCounters.length = 0;
  pendingHistograms.length = 0;
  pending = 0;
  if (cells > MAX_CELLS) {
    generation++;
    cells = 0;
  }
}
