/** Normalised token usage (ARCHITECTURE §2) and the cost derived from it. */

export interface Usage {
  input: { total: number; cacheRead: number; cacheWrite: number };
  output: { total: number; reasoning: number };
  /**
   * Server-tool counters over the whole request: `tool_calls_requested`, `tool_calls_executed` (the agent loop's),
   * `web_search_requests`, `web_fetch_requests` (reference §1e). Each format shows the ones its usage object has.
   */
  serverTools?: Record<string, number>;
  /** The upstream's usage object as received, for debugging. */
  raw?: unknown;
}

/** USD amounts for one response. */
export interface Cost {
  total: number;
  input: number;
  output: number;
  /** What the upstream itself charged, when it says so (null otherwise). */
  upstream: number | null;
}

export function emptyUsage(): Usage {
  return { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: {
      total: a.input.total + b.input.total,
      cacheRead: a.input.cacheRead + b.input.cacheRead,
      cacheWrite: a.input.cacheWrite + b.input.cacheWrite,
    },
    output: { total: a.output.total + b.output.total, reasoning: a.output.reasoning + b.output.reasoning },
  };
}
