/**
 * Requests refused because their model id is not in the catalog (`GET /models`): each typo would otherwise be a row
 * and a series of its own. Such a row is one whose model the catalog does not have and that used nothing (no
 * tokens, no cost); they are summed per period into one "unknown models" row that still lists them. A model that
 * left the catalog after real use keeps its own row.
 */
export interface UsagePoint {
  period: string;
  group: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

export const UNKNOWN_MODELS = "unknown models";

export interface Grouped {
  points: UsagePoint[];
  /** Per period, the refused model ids summed into its "unknown models" point. */
  unknown: Map<string, UsagePoint[]>;
}

export function groupUnknownModels(points: readonly UsagePoint[], catalog: ReadonlySet<string>): Grouped {
  const unknown = new Map<string, UsagePoint[]>();
  const kept: UsagePoint[] = [];
  for (const point of points) {
    const refused = !catalog.has(point.group) && point.input_tokens === 0 && point.output_tokens === 0 && point.cost === 0;
    if (!refused) kept.push(point);
    else unknown.set(point.period, [...(unknown.get(point.period) ?? []), point]);
  }
  for (const [period, members] of unknown) {
    kept.push({ period, group: UNKNOWN_MODELS, requests: members.reduce((n, p) => n + p.requests, 0), input_tokens: 0, output_tokens: 0, cost: 0 });
  }
  // Oldest period first, as the API orders them; the unknown models last within their period.
  kept.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : Number(a.group === UNKNOWN_MODELS) - Number(b.group === UNKNOWN_MODELS)));
  return { points: kept, unknown };
}
