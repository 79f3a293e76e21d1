/** Counting into cells found by label values, handed to prom-client at a flush: exact counts, labels kept apart. */
import { describe, expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { flushMetrics, incBy, observeBy } from "../../../core/observe/metrics/bound.ts";

async function values(registry: Registry): Promise<Record<string, number>> {
  flushMetrics();
  const out: Record<string, number> = {};
  for (const metric of await registry.getMetricsAsJSON()) for (const v of metric.values) out[`${(v as { metricName?: string }).metricName ?? metric.name}${JSON.stringify(v.labels)}`] = v.value;
  return out;
}

describe("bound metrics", () => {
  test("increments and observations per label values, across flushes, with values that share a prefix kept apart", async () => {
    const registry = new Registry();
    const c = new Counter({ name: "c_total", help: "c", labelNames: ["a", "b"], registers: [registry] });
    const h = new Histogram({ name: "h_seconds", help: "h", labelNames: ["a"], buckets: [1, 2], registers: [registry] });
    incBy(c, { a: "x", b: "y" });
    incBy(c, { a: "x", b: "y" }, 2);
    incBy(c, { a: "xy", b: "" });
    incBy(c, { a: "x", b: "z" }, 0.5);
    observeBy(h, { a: "x" }, 0.5);
    observeBy(h, { a: "x" }, 1.5);
    expect(await values(registry)).toMatchObject({
      'c_total{"a":"x","b":"y"}': 3,
      'c_total{"a":"xy","b":""}': 1,
      'c_total{"a":"x","b":"z"}': 0.5,
      'h_seconds_bucket{"le":1,"a":"x"}': 1,
      'h_seconds_bucket{"le":2,"a":"x"}': 2,
      'h_seconds_sum{"a":"x"}': 2,
      'h_seconds_count{"a":"x"}': 2,
    });
    // After a flush the same cells count on from where prom-client is, nothing counted twice.
    incBy(c, { a: "x", b: "y" });
    observeBy(h, { a: "x" }, 3);
    expect(await values(registry)).toMatchObject({ 'c_total{"a":"x","b":"y"}': 4, 'c_total{"a":"xy","b":""}': 1, 'h_seconds_count{"a":"x"}': 3, 'h_seconds_sum{"a":"x"}': 5 });
    expect(await values(registry)).toMatchObject({ 'c_total{"a":"x","b":"y"}': 4, 'h_seconds_count{"a":"x"}': 3 });
  });

  test("histograms: the same buckets, sum and count as prom-client's own observe, values on bounds included, after a reset too", async () => {
    const mine = new Registry();
    const theirs = new Registry();
    const config = { name: "d_seconds", help: "d", labelNames: ["route", "status"], buckets: [0.005, 0.01, 0.1, 1, 10] };
    const h = new Histogram({ ...config, registers: [mine] });
    const reference = new Histogram({ ...config, registers: [theirs] });
    const samples = [0.005, 0.01, 0.0051, 1, 10, 10.5, 0, 0.25, 3, 0.1, ...Array.from({ length: 500 }, (_, i) => (i * 7.3) % 12)];
    const check = async () => expect(await values(mine)).toEqual(await values(theirs));
    for (let round = 0; round < 3; round++) {
      if (round === 2) {
        h.reset();
        reference.reset();
      }
      for (const [i, v] of samples.entries()) {
        const labels = { route: i % 3 === 0 ? "/a" : "/b", status: "200" };
        observeBy(h, labels, v);
        reference.observe(labels, v);
      }
      await check();
    }
  });

  test("many distinct labels: flushed on the way, every increment counted", async () => {
    const registry = new Registry();
    const c = new Counter({ name: "many_total", help: "m", labelNames: ["id"], registers: [registry] });
    for (let round = 0; round < 2; round++) for (let i = 0; i < 30_000; i++) incBy(c, { id: String(i) });
    const counted = await values(registry);
    expect(Object.keys(counted)).toHaveLength(30_000);
    expect(Object.values(counted).every((v) => v === 2)).toBe(true);
  });
});
