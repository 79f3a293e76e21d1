/** Scrapes a gateway's `/metrics` and reads samples through a real Prometheus text-format parser. */
// @ts-expect-error: the parser ships no type declarations (its output is typed below).
import parsePrometheusTextFormat from "parse-prometheus-text-format";

interface ParsedMetric {
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface ParsedFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: ParsedMetric[];
}

export function parseMetrics(text: string): ParsedFamily[] {
  return (parsePrometheusTextFormat as (text: string) => ParsedFamily[])(text);
}

export class Scrape {
  readonly families: ParsedFamily[];

  constructor(readonly text: string) {
    this.families = parseMetrics(text);
  }

  family(name: string): ParsedFamily | undefined {
    return this.families.find((f) => f.name === name);
  }

  /** Samples of a family whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): ParsedMetric[] {
    return (this.family(name)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** Sum of the counter or gauge values matching `labels` (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name, labels).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
  }

  /**
   * Sum of the histogram counts matching `labels`, read from the `<name>_count` lines: the parser keeps the buckets of
   * a labelled histogram but loses its count, sum and labels.
   */
  count(name: string, labels: Record<string, string> = {}): number {
    let sum = 0;
    for (const line of this.text.split("\n")) {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match || match[1] !== `${name}_count`) continue;
      const seen = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
      if (Object.entries(labels).every(([k, v]) => seen[k] === v)) sum += Number(match[3]);
    }
    return sum;
  }
}

export async function scrape(origin: string, token?: string): Promise<Scrape> {
  const response = await fetch(`${origin}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${await response.text()}`);
  return new Scrape(await response.text());
}
