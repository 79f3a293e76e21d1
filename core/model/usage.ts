/** Normalised token usage and the cost derived from it. */

export interface Usage {
  input: { total: number; cacheRead: number; cacheWrite: number };
  /** `images`: images the model generated (priced per image, apart from tokens); absent means none. */
  output: { total: number; reasoning: number; images?: number };
  /**
   * Server-tool counters over the whole request: `tool_calls_requested`, `tool_calls_executed` (the agent loop's),
   * `web_search_requests`, `web_fetch_requests`. Each format shows the ones its usage object has.
   */
  serverTools?: Record<string, number>;
  /** USD the upstream says it charged for this call (OpenRouter's `usage.cost`), shown as `upstream_inference_cost`. */
  upstreamCost?: number;
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
  /** USD a workspace's own provider key paid for it at list price (README "Bring your own keys"); not in `total`. */
  byok?: number;
}

export function emptyUsage(): Usage {
  return { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
}

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input: {
      total: a.input.total + b.input.total,
      cacheRead: a.input.cacheRead + b.input.cacheRead,
      cacheWrite: a.input.cacheWrite + b.input.cacheWrite,
    },
    output: withImages({ total: a.output.total + b.output.total, reasoning: a.output.reasoning + b.output.reasoning }, (a.output.images ?? 0) + (b.output.images ?? 0)),
  };
  if (a.serverTools || b.serverTools) sum.serverTools = addCounters(a.serverTools ?? {}, b.serverTools ?? {});
  return sum;
}

/** Counter-wise sum (an upstream's own web searches over several turns, plus the gateway's). */
export function addCounters(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const key in b) out[key] = (out[key] ?? 0) + (b[key] ?? 0);
  return out;
}

/** `output` with an image count, left out when zero (so text-only usage keeps its usual shape). */
function withImages(output: Usage["output"], images: number): Usage["output"] {
  return images > 0 ? { ...output, images } : output;
}
