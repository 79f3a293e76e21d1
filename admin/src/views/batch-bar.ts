/**
 * A batch's requests in one bar: completed, failed and the rest (pending while the batch runs, "not run" once it
 * ended without them) side by side, each as wide as its count, named in a legend with the counts.
 */
import { h } from "../dom.ts";

export interface RequestCounts {
  completed: number;
  failed: number;
  total: number;
}

export function batchBar(id: string, counts: RequestCounts, ended: boolean): HTMLElement {
  const rest = Math.max(0, counts.total - counts.completed - counts.failed);
  const parts = [
    { name: "completed", kind: "completed", count: counts.completed },
    { name: "failed", kind: "failed", count: counts.failed },
    { name: ended ? "not run" : "pending", kind: "pending", count: rest },
  ];
  const summary = `${parts.map((p) => `${p.count} ${p.name}`).join(", ")}, ${counts.total} in all`;
  const bar = h("div", { class: "bar", role: "img", "aria-label": `${id}: ${summary}` });
  for (const part of parts) {
    if (part.count === 0) continue;
    const segment = h("span", { class: `segment seg-${part.kind}`, title: `${part.count} ${part.name}`, "data-segment": part.name, "data-count": String(part.count) });
    // Through the CSSOM, which the page's Content-Security-Policy allows (a style attribute it would refuse).
    segment.style.flexGrow = String(part.count);
    bar.append(segment);
  }
  const legend = h("ul", { class: "legend" }, ...parts.map((p) => h("li", {}, h("span", { class: `swatch seg-${p.kind}` }), `${p.count} ${p.name}`)), h("li", {}, `${counts.total} in all`));
  return h("div", { class: "counts" }, bar, legend);
}
