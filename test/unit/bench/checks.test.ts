import { expect, test } from "bun:test";
import { checks, type Row, type TargetName } from "../../../bench/checks.ts";
import { summarize } from "../../../bench/load.ts";
import { median, pairedRatio } from "../../../bench/rounds.ts";

const row = (rps: number, cpuUs: number, latencies: number[] = [1]): Row => ({
  requests: 100,
  errors: 0,
  errorSamples: [],
  elapsedMs: 1000,
  rps,
  latencyMs: summarize(latencies),
  peakInFlight: 1,
  bytesPerRequest: 0,
  cpuUsPerRequest: cpuUs,
  peakRssBytes: 0,
});

const figures = (portkey: string) => {
  const rows: Record<string, Partial<Record<TargetName, Row>>> = {
    c64: { proxy: row(10_000, 50), gateway: row(5_000, 200), portkey: row(400, 3000) },
    burst: { proxy: row(4_000, 100), gateway: row(1_000, 700), portkey: row(300, 5000) },
    long: { relay: row(500, 300), gateway: row(200, 500) },
  };
  return { row: (s: string, t: TargetName) => rows[s]?.[t], streams: new Map(), longStreamEvents: 200, features: undefined, portkey };
};

test("each ratio is checked against its target, with the CPU-per-request ratio beside it", () => {
  const byId = new Map(checks(figures("@portkey-ai/gateway 1.15.2")).map((c) => [c.id, c]));
  expect(byId.get("c64_vs_proxy")).toMatchObject({ value: 0.5, pass: true, target: "≥ 0.4" });
  expect(byId.get("c64_vs_proxy")?.text).toContain("by CPU per request 0.25");
  expect(byId.get("c64_vs_portkey")).toMatchObject({ value: 12.5, pass: true });
  expect(byId.get("burst_vs_proxy")).toMatchObject({ value: 0.25, pass: false });
  expect(byId.get("long_cpu_per_chunk")).toMatchObject({ pass: true, target: "≤ 2" });
  expect(byId.get("long_cpu_per_chunk")?.value).toBeCloseTo(5 / 3);
});

test("a yardstick that could not run leaves its targets not measured, neither met nor failed", () => {
  const list = checks(figures("not measured: no node on PATH"));
  const portkey = list.filter((c) => c.id.endsWith("_vs_portkey"));
  expect(portkey.map((c) => c.pass)).toEqual([null, null]);
  expect(portkey[0]?.text).toContain("not measured (no node on PATH)");
  // The feature phase did not run either.
  expect(list.find((c) => c.id === "multi_node_vs_embedded")?.pass).toBeNull();
  expect(list.find((c) => c.id === "c64_vs_proxy")?.pass).toBe(true);
});

test("paired ratios are the median of each round's ratio", () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(pairedRatio([90, 200, 95], [100, 100, 100])).toBeCloseTo(0.95);
});
