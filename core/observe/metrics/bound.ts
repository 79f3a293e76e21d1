/**
 * Counting on the request path without prom-client's per-call cost: its `inc` / `observe` hash the label object
 * (sorting its keys) on every call, child or not, which was most of the metrics' cost per request. Here a request's
 * increments and observations go into plain maps keyed by the label values (every call site passes a family's
 * labels in one fixed order), and reach prom-client in one pass when `/metrics` is rendered — or earlier, once
 * enough are pending, so an unscraped gateway holds a bounded amount.
 */
import type { Counter, Histogram } from "prom-client";

type Labels = Record<string, string>;

/** Pending observations (histograms) or increments (counters) before a flush. */
const MAX_PENDING = 20_000;

const counters = new Map<Counter<string>, Map<string, { labels: Labels; value: number }>>();
const histograms = new Map<Histogram<string>, Map<string, { labels: Labels; values: number[] }>>();
let pending = 0;

function keyOf(labels: Labels): string {
  let key = "";
  for (const name in labels) key += labels[name] + "\u0000";
  return key;
}

export function incBy(counter: Counter<string>, labels: Labels, value = 1): void {
  let byKey = counters.get(counter);
  if (!byKey) counters.set(counter, (byKey = new Map()));
  const key = keyOf(labels);
  const entry = byKey.get(key);
  if (entry) entry.value += value;
  else {
    byKey.set(key, { labels, value });
    if (++pending >= MAX_PENDING) flushMetrics();
  }
}

export function observeBy(histogram: Histogram<string>, labels: Labels, value: number): void {
  let byKey = histograms.get(histogram);
  if (!byKey) histograms.set(histogram, (byKey = new Map()));
  const key = keyOf(labels);
  const entry = byKey.get(key);
  if (entry) entry.values.push(value);
  else byKey.set(key, { labels, values: [value] });
  if (++pending >= MAX_PENDING) flushMetrics();
}

/** Hands everything pending to prom-client (before a scrape renders it). */
export function flushMetrics(): void {
  for (const [counter, byKey] of counters) for (const { labels, value } of byKey.values()) counter.inc(labels, value);
  for (const [histogram, byKey] of histograms) for (const { labels, values } of byKey.values()) for (const value of values) histogram.observe(labels, value);
  counters.clear();
  histograms.clear();
  pending = 0;
}
