/**
 * Usage and cost over time: one line per key, model or provider, by day, week or month (uPlot), with a table.
 * By model, requests refused for a model the catalog does not have are one "unknown models" line and row.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api } from "../api.ts";
import { clear, field, h, table, usd } from "../dom.ts";
import { groupUnknownModels, UNKNOWN_MODELS, type UsagePoint as Point } from "./unknown-models.ts";

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

export function usageView(root: HTMLElement): void {
  const groupBy = h("select", {}, h("option", { value: "model" }, "model"), h("option", { value: "provider" }, "provider"), h("option", { value: "key" }, "key"));
  const period = h("select", {}, h("option", { value: "day" }, "day"), h("option", { value: "week" }, "week"), h("option", { value: "month" }, "month"));
  const measure = h("select", {}, h("option", { value: "cost" }, "cost (USD)"), h("option", { value: "requests" }, "requests"), h("option", { value: "tokens" }, "tokens"));
  const chart = h("div", { class: "chart", role: "img", "aria-label": "Usage over time" });
  const rows = h("div");
  let plot: uPlot | undefined;
  // The catalog is fixed while the gateway runs; without it (an error) nothing is grouped.
  const catalog = api<{ data: Array<{ id: string }> }>("/models").then(
    (models) => new Set(models.data.map((m) => m.id)),
    () => null,
  );
  const controls = h("form", { class: "inline", on: { change: () => void load(), submit: (e) => (e.preventDefault(), void load()) } }, field("Series by", groupBy), field("Period", period), field("Show", measure), h("button", { type: "submit" }, "Refresh"));

  async function load(): Promise<void> {
    const result = await api<{ data: Point[]; from: string; to: string }>(`/usage?group_by=${groupBy.value}&period=${period.value}`);
    const known = groupBy.value === "model" ? await catalog : null;
    const { points, unknown } = known ? groupUnknownModels(result.data, known) : { points: result.data, unknown: new Map<string, Point[]>() };
    draw(points, periodsBetween(result.from, result.to, period.value));
    const groupCell = (p: Point) => {
      const members = p.group === UNKNOWN_MODELS ? unknown.get(p.period) : undefined;
      if (!members) return p.group;
      return h(
        "details",
        { title: members.map((m) => m.group).join(", ") },
        h("summary", {}, `${UNKNOWN_MODELS} (${members.length})`),
        h("ul", {}, ...members.map((m) => h("li", {}, `${m.group}: ${m.requests} request${m.requests === 1 ? "" : "s"}`))),
      );
    };
    clear(rows);
    rows.append(
      table(
        ["Period", groupBy.value, "Requests", "Input tokens", "Output tokens", "Cost"],
        points.map((p) => [p.period, groupCell(p), p.requests, p.input_tokens, p.output_tokens, usd(p.cost)]),
        `Usage by ${groupBy.value} and ${period.value}, ${result.from} to ${result.to}`,
      ),
    );
  }

  function valueOf(p: Point): number {
    return measure.value === "requests" ? p.requests : measure.value === "tokens" ? p.input_tokens + p.output_tokens : p.cost;
  }

  /** Every period of the range, those without usage at zero, so a line has a shape even with one busy day. */
  function draw(points: Point[], periods: string[]): void {
    const groups = [...new Set(points.map((p) => p.group))].sort();
    const xs = periods.map((p) => Date.parse(`${p}T00:00:00Z`) / 1000);
    const series = groups.map((group) => periods.map((period) => {
      const point = points.find((p) => p.period === period && p.group === group);
      return point ? valueOf(point) : 0;
    }));
    plot?.destroy();
    chart.dataset.points = String(points.length);
    if (xs.length === 0) {
      chart.textContent = "No usage in this range yet.";
      return;
    }
    chart.textContent = "";
    const width = Math.max(280, Math.min(chart.clientWidth || 800, 1000));
    plot = new uPlot(
      {
        width,
        height: 300,
        scales: { x: { time: true } },
        series: [{}, ...groups.map((label, i) => ({ label, stroke: PALETTE[i % PALETTE.length]!, width: 2, points: { show: true, size: 8 } }))],
        axes: [{}, { label: measure.value === "cost" ? "USD" : measure.value, size: 70, values: (_u, values) => values.map(compact) }],
      },
      [xs, ...series],
      chart,
    );
  }

  root.append(h("h2", {}, "Usage"), controls, chart, rows);
  void load();
}

/** First days (YYYY-MM-DD, UTC) of the day, week (Monday) or month periods from `from` to `to`. */
function periodsBetween(from: string, to: string, period: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  const at = new Date(`${from}T00:00:00Z`);
  if (period === "week") at.setUTCDate(at.getUTCDate() - ((at.getUTCDay() + 6) % 7));
  if (period === "month") at.setUTCDate(1);
  while (at.getTime() <= end && out.length < 500) {
    out.push(at.toISOString().slice(0, 10));
    if (period === "day") at.setUTCDate(at.getUTCDate() + 1);
    else if (period === "week") at.setUTCDate(at.getUTCDate() + 7);
    else at.setUTCMonth(at.getUTCMonth() + 1);
  }
  return out;
}

/** Axis numbers that stay readable from fractions of a cent to millions. */
function compact(value: number): string {
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs < 0.01) return value.toExponential(1);
  return abs >= 1000 ? `${(value / 1000).toFixed(abs >= 10_000 ? 0 : 1)}k` : String(Math.round(value * 100) / 100);
}
