/**
 * A hostile request and an ordinary one at the same time against an in-process gateway: the ordinary request is sent
 * once the hostile one is in flight, and the process's resident memory is sampled until both have answered, so a test
 * can bound the growth the hostile request caused (workers share the process: their memory counts too).
 */

export interface InFlight<H, O> {
  hostile: H;
  ordinary: O;
  /** Highest resident memory seen while they ran, minus what it was before. */
  peakGrowthBytes: number;
}

const SAMPLE_MS = 20;

export async function alongside<H, O>(hostile: () => Promise<H>, ordinary: () => Promise<O>): Promise<InFlight<H, O>> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), SAMPLE_MS);
  try {
    const pending = hostile();
    const [hostileAnswer, ordinaryAnswer] = await Promise.all([pending, ordinary()]);
    peak = Math.max(peak, process.memoryUsage.rss());
    return { hostile: hostileAnswer, ordinary: ordinaryAnswer, peakGrowthBytes: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

/** Generous: a hostile document left unbounded grew the gateway by 2–16 GB. */
export const MEMORY_GROWTH_BOUND = 1024 * 1024 * 1024;
