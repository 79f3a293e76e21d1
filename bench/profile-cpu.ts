/**
 * Reads a CPU profile of the bundled gateway (`bun --cpu-prof`, Chrome's .cpuprofile format; Bun maps the bundle's
 * frames back to the source files through the bundle's source map) and says where the time of a plain request goes.
 *
 * Only the samples inside the load's window count (the profile's clock is wall time in µs, the child reports the
 * window's ends on the same clock). Each sample is charged to an area of the code (AREAS, by source path): the area
 * of its own frame when that is our code or a known library, else of the nearest such caller — a native call
 * (Bun's fetch, JSON.parse, a socket write) is charged to the code that made it. Samples whose stack has no such
 * frame (async continuations resumed from the event loop, runtime internals) are charged to RUNTIME.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Areas by source path, first match wins (paths relative to the checkout, or a package under node_modules). */
export const AREAS: ReadonlyArray<readonly [string, RegExp]> = [
  ["auth", /^core\/auth\/|^core\/http\/auth-first\.ts|^core\/pipeline\/stages\/auth\.ts/],
  ["body read", /^core\/http\/(body-|json-depth|clip)/],
  ["edge: Elysia and the HTTP front door", /^node_modules\/elysia\/|^node_modules\/@sinclair\/|^core\/(app|serve)\.ts|^core\/http\/|^core\/api\//],
  ["request log", /^core\/pipeline\/request-log\.ts|^core\/logger\.ts|^node_modules\/(pino|sonic-boom|thread-stream|fast-redact|on-exit-leak-free|quick-format-unescaped|atomic-sleep|safe-stable-stringify)/],
  ["metrics and tracing", /^core\/observe\/|^node_modules\/prom-client\//],
  ["store writes (ledger, generation records)", /^core\/store\/|^core\/accounting\/ledger\.ts|^node_modules\/kysely\/|^bun:sqlite/],
  ["pipeline: accounting", /^core\/accounting\/|^core\/pipeline\/stages\/accounting\.ts/],
  ["pipeline: limits and credits", /^core\/limits\/|^core\/pipeline\/stages\/limits\.ts|^core\/kv\//],
  ["pipeline: guardrails", /^core\/guardrails\/|^core\/pipeline\/stages\/guardrails\.ts/],
  ["pipeline: plugins", /^plugins\/|^core\/pipeline\/plugins\/|^core\/pipeline\/stages\/plugins\.ts|^core\/registry\//],
  ["pipeline: routing and the model turn", /^core\/routing\/|^core\/pipeline\/turn\//],
  ["pipeline: stages and context", /^core\/pipeline\/|^core\/idempotency\//],
  ["format decode/encode", /^core\/formats\/|^core\/model\//],
  ["provider adapter", /^providers\//],
  ["upstream HTTP", /^core\/upstream-http\//],
  ["other gateway code", /^core\/|^tools\/|^bench\//],
  ["other libraries", /^node_modules\//],
];

const RUNTIME = "runtime: native code entered from the event loop, no caller in our code";

/** A frame's source path relative to the checkout (or `node_modules/<package>/…`), or undefined for native code. */
export function sourcePath(url: string, root: string): string | undefined {
  if (url === "" || url === "[native code]") return undefined;
  let path = url.startsWith("file://") ? url.slice("file://".length) : url;
  if (path.startsWith("bun:")) return path;
  if (!path.startsWith("/")) return undefined; // node:*, internal:* — the runtime's own modules
  const modules = path.lastIndexOf("/node_modules/");
  if (modules !== -1) return path.slice(modules + 1);
  if (path.startsWith(`${root}/`)) path = path.slice(root.length + 1);
  else return undefined; // the bundle itself, where no source map entry applied
  return path;
}

export function areaOf(path: string): string | undefined {
  for (const [area, pattern] of AREAS) if (pattern.test(path)) return area;
  return undefined;
}

export interface Hot {
  name: string;
  /** Where it is (source path:line), or "native" with the calling frame. */
  where: string;
  area: string;
  samples: number;
}

export interface CpuSummary {
  samples: number;
  intervalUs: number;
  areas: Array<{ area: string; samples: number }>;
  hot: Hot[];
  files: Array<{ path: string; samples: number }>;
}

/** Summarises the samples taken between `fromUs` and `toUs` (the profile's clock). */
export function summarizeProfile(profile: CpuProfile, root: string, fromUs: number, toUs: number): CpuSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Per node, computed once: its own path/area, and the area and frame it is charged to.
  const charged = new Map<number, { area: string; at: string }>();
  const chargeOf = (id: number) => {
    const known = charged.get(id);
    if (known) return known;
    let result = { area: RUNTIME, at: "" };
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      const path = frame ? sourcePath(frame.url, root) : undefined;
      const area = path ? areaOf(path) : undefined;
      if (path && area) {
        result = { area, at: `${path}:${(frame?.lineNumber ?? 0) + 1}` };
        break;
      }
    }
    charged.set(id, result);
    return result;
  };

  const areaSamples = new Map<string, number>();
  const hot = new Map<string, Hot>();
  const files = new Map<string, number>();
  let time = profile.startTime;
  let counted = 0;
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i] ?? 0;
    if (time < fromUs || time > toUs) return;
    counted++;
    const node = byId.get(id);
    if (!node) return;
    const { area, at } = chargeOf(id);
    areaSamples.set(area, (areaSamples.get(area) ?? 0) + 1);
    const own = sourcePath(node.callFrame.url, root);
    const name = node.callFrame.functionName || "(anonymous)";
    const where = own ? `${own}:${node.callFrame.lineNumber + 1}` : `native, from ${at || "the event loop"}`;
    const key = `${name}|${where}`;
    const entry = hot.get(key) ?? { name, where, area, samples: 0 };
    entry.samples++;
    hot.set(key, entry);
    const file = at ? at.slice(0, at.lastIndexOf(":")) : RUNTIME;
    files.set(file, (files.get(file) ?? 0) + 1);
  });
  const intervals = profile.timeDeltas.slice(1).filter((d) => d > 0).sort((a, b) => a - b);
  return {
    samples: counted,
    intervalUs: intervals[Math.floor(intervals.length / 2)] ?? 1000,
    areas: [...areaSamples].map(([area, samples]) => ({ area, samples })).sort((a, b) => b.samples - a.samples),
    hot: [...hot.values()].sort((a, b) => b.samples - a.samples),
    files: [...files].map(([path, samples]) => ({ path, samples })).sort((a, b) => b.samples - a.samples),
  };
}
