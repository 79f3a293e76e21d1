/**
 * What every bench server child shares: announce the listening port to the parent (one JSON line on stdout) and
 * answer the parent's IPC requests — `gc` runs a full collection and replies with `process.memoryUsage()`, so idle
 * memory is measured after the garbage of the warm-up is gone; `stats` replies without collecting.
 */

export interface ChildReply {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

export function announce(port: number, extra: Record<string, unknown> = {}): void {
  process.on("message", (message: unknown) => {
    if (message === "gc") Bun.gc(true);
    if (message === "gc" || message === "stats") {
      const m = process.memoryUsage();
      const reply: ChildReply = { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
      process.send?.(reply);
    }
  });
  process.stdout.write(`${JSON.stringify({ ready: true, port, ...extra })}\n`);
}

/** Env var as a required string (the parent always sets these). */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`bench child: ${name} is not set`);
  return value;
}
